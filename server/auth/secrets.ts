// Random tokens, their stored form (SHA-256) and constant-time comparison.
import { hash, randomFillSync } from "node:crypto";

// Tokens are cut from a pool of CSPRNG bytes refilled 4 KiB at a time (as Node's randomUUID does): one
// call into OpenSSL per 128 tokens instead of one per token, which the token endpoint issues two at a time.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

/** `bytes` random bytes (256 bits by default), base64url. Each byte of the pool is handed out once. */
export function randomToken(bytes = 32): string {
  if (bytes > POOL_BYTES) throw new RangeError(`randomToken takes at most ${POOL_BYTES} bytes`);
  if (poolOffset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const token = pool.toString("base64url", poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return token;
}

/** Tokens are high-entropy, so a fast hash is enough to make a stolen table useless. */
export function hashToken(token: string): string {
  return hash("sha256", token, "hex"); // one-shot: half the cost of a createHash object, on every request
}

/** Equal strings, compared in time that depends only on their length (as timingSafeEqual, without a Buffer per call). */
export function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
