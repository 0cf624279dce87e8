// X-Slipway-Signature-256: "sha256=" + HMAC-SHA256(secret, raw body), hex (the scheme GitHub's webhooks use).
import { createHmac, timingSafeEqual } from "node:crypto";

export function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** For receivers (and the tests): constant-time comparison with the header. */
export function verifySignature(secret: string, body: string, header: string | undefined): boolean {
  const expected = Buffer.from(signatureOf(secret, body));
  const given = Buffer.from(header ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
