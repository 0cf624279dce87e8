// The consent form shared by the authorization code flow (/oauth/authorize) and the device flow
// (/oauth/device): who asks (name, logo, owner, homepage), where the answer goes (the redirect host), for
// what (the scopes in plain words), approve or deny; and who is signed in, with a way to switch account.
import { SCOPE_DESCRIPTIONS, type Scope } from "../../auth/scopes.ts";
import type { ClientForConsent } from "../../services/oauth-clients.ts";
import { html, type Page, type SafeHtml } from "./html.ts";

export interface SignedIn {
  user: { name: string; email: string };
  /** Where signing in again comes back to (a path on this server). */
  next: string;
  /** The switch-account form's anti-CSRF value. */
  switchToken: string;
}

export interface ConsentView extends SignedIn {
  action: "/oauth/authorize" | "/oauth/device";
  client: ClientForConsent;
  scopes: Scope[];
  /** Where approving (or denying) sends the browser: the redirect URI's host. None in the device flow. */
  redirectHost?: string;
  /** Hidden inputs posted back with the decision (the request's parameters and the anti-CSRF value). */
  hidden: Record<string, string | undefined>;
  /** Shown above the buttons (the device flow warns about codes sent by someone else). */
  warning?: string;
  formTargets?: string[];
}

/** The app's logo from the CDN, or its initial. */
function logo(client: ClientForConsent): SafeHtml {
  if (client.logoFileId) return html`<img class="logo" src="/api/cdn/${client.logoFileId}" alt="" width="56" height="56">`;
  return html`<span class="logo monogram" aria-hidden="true">${client.name.trim().charAt(0).toUpperCase()}</span>`;
}

function homepage(url: string): SafeHtml | string {
  if (!url) return "";
  return html`<li>Homepage: <a href="${url}" rel="noopener noreferrer nofollow" target="_blank">${new URL(url).host}</a></li>`;
}

/** "Signed in as … Not you?": signs out (a POST with its own anti-CSRF value) and signs in again to come back. */
export function accountLine(view: SignedIn): SafeHtml {
  return html`
<div class="account">
<span>Signed in as <strong>${view.user.name}</strong> (${view.user.email}).</span>
<form method="post" action="/oauth/switch-account">
<input name="switch_token" type="hidden" value="${view.switchToken}"><input name="next" type="hidden" value="${view.next}">
<span>Not you? <button type="submit" class="link">Sign out and use another account</button></span>
</form>
</div>`;
}

export function consentPage(view: ConsentView): Page {
  const { client } = view;
  const inputs = Object.entries(view.hidden)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return {
    title: `Authorize ${client.name}`,
    formTargets: view.formTargets,
    body: html`
<div class="app">${logo(client)}<div>
<h1>Authorize ${client.name}</h1>
<p class="muted">${client.ownerName ? html`by <strong>${client.ownerName}</strong>` : "by Slipway"}</p>
</div></div>
<p><strong>${client.name}</strong> wants to access your Slipway account.${client.description ? html` <span class="muted">${client.description}</span>` : ""}</p>
<ul class="facts">
${homepage(client.homepageUrl)}
${view.redirectHost ? html`<li>After you answer, you will be sent to <strong>${view.redirectHost}</strong></li>` : ""}
<li>Registered ${client.createdAt.toISOString().slice(0, 10)}</li>
</ul>
<h2>If you approve, it will be able to</h2>
<ul class="scopes">${view.scopes.map((scope) => html`<li>${SCOPE_DESCRIPTIONS[scope]}</li>`)}</ul>
${view.warning ? html`<p class="warning">${view.warning}</p>` : ""}
<form method="post" action="${view.action}">
${inputs}
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
${accountLine(view)}
<p class="details">Client ID <code>${client.clientId}</code> · scopes ${view.scopes.join(" ")}</p>`,
  };
}
