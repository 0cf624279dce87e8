// The error page for what cannot be redirected to the client (unknown client, unregistered redirect_uri,
// a forged form) and for problems in the device flow.
import type { FastifyReply } from "fastify";
import { InvalidClientError, type AppError } from "../../errors.ts";
import { html, sendPage, type Page } from "./html.ts";

export function errorPage(view: { title: string; message: string; code?: string }): Page {
  return {
    title: view.title,
    body: html`
<h1>${view.title}</h1>
<p class="error" role="alert">${view.message}</p>
${view.code ? html`<p class="muted">Error code: ${view.code}</p>` : ""}
<p class="muted">You can close this page and return to the application.</p>`,
  };
}

export function sendErrorPage(reply: FastifyReply, error: AppError, title = "This request cannot be completed") {
  if (error.headers) reply.headers(error.headers);
  // An unknown client on a page is a bad link, not a failed client authentication (no 401 challenge).
  const status = error instanceof InvalidClientError ? 400 : error.status;
  return sendPage(reply, status, errorPage({ title, message: error.message, code: error.code }));
}
