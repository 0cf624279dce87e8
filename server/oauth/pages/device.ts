// The device flow's pages: enter the code shown on the device, then (consent.ts) approve or deny, then
// the outcome.
import { html, type Page } from "./html.ts";

export function codeEntryPage(view: { csrfToken: string; userCode?: string; error?: string }): Page {
  return {
    title: "Connect a device",
    body: html`
<h1>Connect a device</h1>
<p>Enter the code shown on your device or in your terminal.</p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ""}
<form method="post" action="/oauth/device">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<p><label for="user_code">Code</label><br>
<input type="text" id="user_code" name="user_code" value="${view.userCode ?? ""}" placeholder="XXXX-XXXX" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus></p>
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>
<p class="muted">Only enter a code that you requested yourself. Never enter a code that someone else sent you.</p>`,
  };
}

export function deviceOutcomePage(approved: boolean, clientName: string): Page {
  return approved
    ? { title: "Device connected", body: html`<h1>Device connected</h1><p>${clientName} can now access your account. Return to your device to continue.</p>` }
    : { title: "Request denied", body: html`<h1>Request denied</h1><p>${clientName} was not given access. You can close this page.</p>` };
}
