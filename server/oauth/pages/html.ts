// Server-rendered pages of the OAuth flows. Every interpolated value is escaped by the `html` tag; only
// fragments built by `html` itself are inserted as markup. Pages send a CSP without scripts, with
// frame-ancestors 'none' (no clickjacking of the consent buttons) and no caching.
import { randomBytes } from "node:crypto";
import type { FastifyReply } from "fastify";

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

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
  main { max-width: 28rem; margin: 4rem auto; background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 2px 12px #0001; }
  h1 { font-size: 1.3rem; margin-top: 0; } ul { padding-left: 1.2rem; } .muted { color: #5b6475; font-size: .9rem; }
  .warning { background: #fff4e5; border: 1px solid #f0b35b; border-radius: 8px; padding: .75rem; }
  .error { background: #fdecec; border: 1px solid #e08080; border-radius: 8px; padding: .75rem; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
  button { font: inherit; padding: .6rem 1.2rem; border-radius: 8px; border: 1px solid #c4c9d4; background: #fff; cursor: pointer; }
  button[value=approve], button.primary { background: #2454d6; border-color: #2454d6; color: #fff; }
  input[type=text] { font: 1.4rem ui-monospace, monospace; letter-spacing: .15em; text-transform: uppercase; width: 100%; box-sizing: border-box; padding: .5rem; }
`;

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
      `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    )
    .header("X-Frame-Options", "DENY");
  return reply.send(
    html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · Slipway</title><style nonce="${nonce}">${new SafeHtml(STYLE)}</style></head>
<body><main>${page.body}</main></body>
</html>`.value,
  );
}
