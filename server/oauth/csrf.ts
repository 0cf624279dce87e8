// The consent forms' anti-CSRF value: an HMAC of the session cookie, so it is bound to the session,
// needs no storage, and nobody without the cookie can compute it. Compared in constant time.
import { createHmac } from "node:crypto";
import { safeEqual } from "../auth/secrets.ts";

export type CsrfPurpose = "authorize" | "device" | "switch";

export function csrfToken(sessionToken: string, purpose: CsrfPurpose): string {
  return createHmac("sha256", sessionToken).update(`slipway oauth ${purpose} form`).digest("base64url");
}

export function csrfValid(sessionToken: string, purpose: CsrfPurpose, presented: unknown): boolean {
  return typeof presented === "string" && safeEqual(presented, csrfToken(sessionToken, purpose));
}
