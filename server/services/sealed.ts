// Secrets kept at rest AES-256-GCM encrypted (the pattern of github-tokens.ts): a key generated into
// DATA_DIR/secrets/<name>.key on first use (mode 0600), and additional data binding each value to its row, so
// a value copied onto another row does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const VERSION = "v1";

export interface Sealer {
  seal(boundTo: string, secret: string): string;
  /** null when the value was sealed with another key, bound to another row, or tampered with. */
  open(boundTo: string, sealed: string): string | null;
}

/**
 * A 256-bit key kept in `dir`/secrets/<name>.key, made on first use (mode 0600): every instance sharing `dir`
 * (SHARED_DATA_DIR) reads the same one, the first to need it writes it.
 */
export function sharedKey(dir: string, name: string): Buffer {
  const keyFile = path.join(dir, "secrets", `${name}.key`);
  fs.mkdirSync(path.dirname(keyFile), { recursive: true, mode: 0o700 });
  if (!fs.existsSync(keyFile)) {
    // Written whole, then linked into place: an instance starting alongside never reads a half-written key.
    const draft = `${keyFile}.${process.pid}.${randomBytes(4).toString("hex")}`;
    fs.writeFileSync(draft, randomBytes(32).toString("base64"), { mode: 0o600 });
    try {
      fs.linkSync(draft, keyFile);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A shared filesystem without hard links (SMB): an exclusive create, the small window accepted there.
      if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP") fs.writeFileSync(keyFile, fs.readFileSync(draft), { mode: 0o600, flag: "wx" });
      else if (code !== "EEXIST") throw error;
    } finally {
      fs.rmSync(draft, { force: true });
    }
  }
  const key = Buffer.from(fs.readFileSync(keyFile, "utf8").trim(), "base64");
  if (key.length !== 32) throw new Error(`${keyFile} does not hold a 256-bit key`);
  return key;
}

export function createSealer(dataDir: string, name: string): Sealer {
  let key: Buffer | undefined;
  const keyOf = () => (key ??= sharedKey(dataDir, name));

  return {
    seal(boundTo, secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", keyOf(), iv).setAAD(Buffer.from(boundTo));
      const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
      return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), sealed.toString("base64")].join(":");
    },
    open(boundTo, stored) {
      const [version, iv, tag, sealed] = stored.split(":");
      if (version !== VERSION || !iv || !tag || sealed === undefined) return null;
      try {
        const decipher = createDecipheriv("aes-256-gcm", keyOf(), Buffer.from(iv, "base64")).setAAD(Buffer.from(boundTo));
        decipher.setAuthTag(Buffer.from(tag, "base64"));
        return Buffer.concat([decipher.update(Buffer.from(sealed, "base64")), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}
