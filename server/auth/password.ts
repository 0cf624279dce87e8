// Passwords are hashed with scrypt (memory-hard, built into Node): 32 MiB and ~50 ms per hash.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";

const params = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } satisfies ScryptOptions;
const keyLength = 32;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize("NFKC"), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, params);
  return ["scrypt", params.N, params.r, params.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, expected] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !expected) return false;
  const key = await scrypt(password, Buffer.from(salt, "base64url"), { N: Number(N), r: Number(r), p: Number(p), maxmem: params.maxmem });
  const want = Buffer.from(expected, "base64url");
  return key.length === want.length && timingSafeEqual(key, want);
}

/** Burns the same time as a real check, so an unknown email is not told apart from a wrong password. */
let dummyHash: Promise<string> | undefined;
export async function verifyAgainstNothing(password: string): Promise<false> {
  dummyHash ??= hashPassword("slipway-timing-equaliser");
  await verifyPassword(password, await dummyHash);
  return false;
}
