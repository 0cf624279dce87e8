// The device flow's pages: enter the code shown on the device, then (consent.ts) approve or deny, then
// the outcome, with a way back to the dashboard.
import { accountLine, type SignedIn } from "./consent.ts";
import { html, type Page } from "./html.ts";

export function codeEntryPage(view: SignedIn & { csrfToken: string; userCode?: string; error?: string }): Page {
  return {
    title: "Connect a device",
    body: html`
<h1>Connect a device</h1>
<p>Enter the code shown on your device or in your terminal.</p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ""}
<form method="post" action="/oauth/device">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<label for="user_code">Code</label>
<input type="text" id="user_code" name="user_code" value="${view.userCode ?? ""}" placeholder="XXXX-XXXX" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus${view.error ? html` aria-invalid="true"` : ""}>
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>
<p class="muted">Only enter a code that you requested yourself. Never enter a code that someone else sent you.</p>
${accountLine(view)}`,
  };
}

export function deviceOutcomePage(approved: boolean, clientName: string): Page {
  const back = html`<p><a href="/oauth-apps">Back to Slipway</a> <span class="muted">(your authorized apps, where you can revoke access)</span></p>`;
  return approved
    ? { title: "Device connected", body: html`<h1>Device connected</h1><p>${clientName} can now access your account. Return to your device to continue.</p>${back}` }
    : { title: "Request denied", body: html`<h1>Request denied</h1><p>${clientName} was not given access. You can close this page.</p>${back}` };
}
