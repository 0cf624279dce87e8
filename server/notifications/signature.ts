// X-Slipway-Signature-256: "sha256=" + HMAC-SHA256(secret, raw body), hex: the scheme GitHub's webhooks use, which
// http/github-webhook.ts verifies on the way in.
import { createHmac } from "node:crypto";

export function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
