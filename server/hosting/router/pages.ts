// The pages the router answers itself on app hosts: small, self-contained HTML with no platform internals
// (no stack traces, no upstream addresses, no platform headers or cookies).
import type { ServerResponse } from "node:http";
import type { RouteTarget } from "./types.ts";

type Unavailable = Extract<RouteTarget, { kind: "unavailable" }>["status"];

export interface Page {
  status: number;
  body: Buffer;
  headers: Record<string, string>;
}

/** Seconds a client should wait before retrying an app that is being deployed. */
const DEPLOYING_RETRY_AFTER = "10";

function page(status: number, title: string, message: string, extra: Record<string, string> = {}): Page {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:15vh auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}p{color:#555}</style>
</head><body><h1>${title}</h1><p>${message}</p></body></html>
`;
  const body = Buffer.from(html);
  return {
    status,
    body,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-length": String(body.length),
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      ...extra,
    },
  };
}

export const pages = {
  badRequest: page(400, "Bad request", "This address is not valid."),
  notFound: page(404, "Not found", "There is nothing at this address."),
  unknownApp: page(404, "No app here", "No app answers at this address. Check the spelling of the address."),
  badGateway: page(502, "App not responding", "The app did not answer this request. Try again in a moment."),
  gatewayTimeout: page(504, "App too slow", "The app took too long to answer this request. Try again in a moment."),
  methodNotAllowed: page(405, "Method not allowed", "This site only answers GET and HEAD requests.", { allow: "GET, HEAD" }),
  internalError: page(500, "Something went wrong", "This request could not be answered. Try again in a moment."),
} satisfies Record<string, Page>;

export const unavailablePages: Record<Unavailable, Page> = {
  CREATED: page(503, "Not deployed yet", "This app has not been deployed yet."),
  DEPLOYING: page(503, "Deploying…", "This app is being deployed and will answer in a moment.", { "retry-after": DEPLOYING_RETRY_AFTER }),
  STOPPED: page(503, "Stopped", "This app is stopped. Its owner can start it again."),
  CRASHED: page(503, "Crashed", "This app stopped unexpectedly. Slipway restarts it, waiting longer after each crash: try again in a moment."),
  FAILED: page(503, "Deploy failed", "This app's deployment failed and it has no running release."),
};

/** A sleeping app that did not start when a request woke it. */
export const wakeFailedPage = page(503, "Could not wake", "This app was asleep and did not start in time. Try again in a moment.", { "retry-after": DEPLOYING_RETRY_AFTER });

/** The page of an app that cannot answer; a failed deployment's page names its error. */
export function unavailablePage(target: Extract<RouteTarget, { kind: "unavailable" }>): Page {
  if (target.status !== "FAILED" || !target.reason) return unavailablePages[target.status];
  return page(503, "Deploy failed", `Deploy failed: ${escapeHtml(target.reason)} No release of this app is running.`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Sends a page (no body for HEAD). Once a response has started, the connection is cut instead: the client sees it truncated. */
export function sendPage(res: ServerResponse, { status, body, headers }: Page, method: string | undefined): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, headers);
  res.end(method === "HEAD" ? undefined : body);
}
