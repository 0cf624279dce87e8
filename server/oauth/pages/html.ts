// Server-rendered pages of the OAuth flows. Every interpolated value is escaped by the `html` tag; only
// fragments built by `html` itself are inserted as markup. Pages send a CSP without scripts, with
// frame-ancestors 'none' (no clickjacking of the consent buttons) and no caching.
import { randomBytes } from "node:crypto";
import type { FastifyReply } from "fastify";
import { STYLE } from "./style.ts";

export class SafeHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ""), ""));
}


export interface Page {
  title: string;
  body: SafeHtml;
  /** Extra origins a form on the page may lead to (the consent form's redirect goes to the client). */
  formTargets?: string[];
}

export function sendPage(reply: FastifyReply, status: number, page: Page) {
  const nonce = randomBytes(16).toString("base64");
  const formAction = ["'self'", ...(page.formTargets ?? [])].join(" ");
  reply
    .status(status)
    .type("text/html; charset=utf-8")
    .header("Cache-Control", "no-store")
    .header(
      "Content-Security-Policy",
      // https: images for app logos kept on S3 (the CDN answers with a presigned URL there).
      `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self' data: https:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    )
    .header("X-Frame-Options", "DENY");
  return reply.send(
    html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · Slipway</title><style nonce="${nonce}">${new SafeHtml(STYLE)}</style></head>
<body><main><a class="brand" href="/">Slipway</a><div class="card">${page.body}</div></main></body>
</html>`.value,
  );
}
