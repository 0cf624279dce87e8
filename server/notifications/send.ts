// One try of one delivery: a POST through the outbound guard (private addresses refused at connection time, the
// connection pinned to the address checked), with a deadline. Never throws: the outcome says what happened.
import http from "node:http";
import https from "node:https";
import type { OutboundGuard } from "../platform/outbound.ts";
import { signatureOf } from "./signature.ts";

export const SEND_TIMEOUT_MS = 10_000;

export interface Outgoing {
  url: string;
  secret: string;
  deliveryId: string;
  event: string;
  body: string;
}

export interface SendOutcome {
  ok: boolean;
  responseStatus: number | null;
  /** Why it failed, in words for the delivery log; null when it succeeded. */
  error: string | null;
  durationMs: number;
}

export async function send(guard: OutboundGuard, outgoing: Outgoing, timeoutMs = SEND_TIMEOUT_MS): Promise<SendOutcome> {
  const started = performance.now();
  const url = new URL(outgoing.url);
  const client = url.protocol === "https:" ? https : http;
  const done = (responseStatus: number | null, error: string | null): SendOutcome => ({
    ok: error === null,
    responseStatus,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  // Node skips `lookup` for an address literal: checked here, so a narrowed OUTBOUND_ALLOWED_HOSTS applies to it too.
  try {
    await guard.resolve(url.hostname);
  } catch (error) {
    return done(null, `refused: ${(error as Error).message}`);
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(outcome);
    };
    const request = client.request(
      url,
      {
        method: "POST",
        lookup: guard.lookup,
        headers: {
          "content-type": "application/json",
          "user-agent": "Slipway-Webhooks/1",
          "x-slipway-event": outgoing.event,
          "x-slipway-delivery": outgoing.deliveryId,
          "x-slipway-signature-256": signatureOf(outgoing.secret, outgoing.body),
        },
      },
      (response) => {
        // The status line is the answer: the body is not waited for (a receiver trickling one would hold the try).
        const status = response.statusCode ?? 0;
        finish(done(status, status >= 200 && status < 300 ? null : `answered ${status}`));
        response.destroy();
      },
    );
    // One deadline for the whole try (a socket timeout only measures silences).
    const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) => finish(done(null, error.code === "EOUTBOUNDREFUSED" ? `refused: ${error.message}` : error.message)));
    request.end(outgoing.body);
  });
}
