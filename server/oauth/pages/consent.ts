// The consent form shared by the authorization code flow (/oauth/authorize) and the device flow
// (/oauth/device): who asks, for what (the scopes in plain words), approve or deny.
import { SCOPE_DESCRIPTIONS, type Scope } from "../../auth/scopes.ts";
import { html, type Page } from "./html.ts";

export interface ConsentView {
  action: "/oauth/authorize" | "/oauth/device";
  client: { name: string; description: string; clientId: string };
  scopes: Scope[];
  user: { name: string; email: string };
  /** Hidden inputs posted back with the decision (the request's parameters and the anti-CSRF value). */
  hidden: Record<string, string | undefined>;
  /** Shown above the buttons (the device flow warns about codes sent by someone else). */
  warning?: string;
  formTargets?: string[];
}

export function consentPage(view: ConsentView): Page {
  const inputs = Object.entries(view.hidden)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return {
    title: `Authorize ${view.client.name}`,
    formTargets: view.formTargets,
    body: html`
<h1><strong>${view.client.name}</strong> wants to access your Slipway account</h1>
${view.client.description ? html`<p>${view.client.description}</p>` : ""}
<p class="muted">Signed in as ${view.user.name} (${view.user.email}). Client ID ${view.client.clientId}.</p>
<p>If you approve, it will be able to:</p>
<ul>${view.scopes.map((scope) => html`<li>${SCOPE_DESCRIPTIONS[scope]} <span class="muted">(${scope})</span></li>`)}</ul>
${view.warning ? html`<p class="warning">${view.warning}</p>` : ""}
<form method="post" action="${view.action}">
${inputs}
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  };
}
