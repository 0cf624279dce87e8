// GitHub tokens for cloning private repositories: the operator's GITHUB_TOKEN, or one an app's owner sets.
// An app's token is stored AES-256-GCM encrypted, bound to its app (the app id is the additional data, so a
// value copied onto another row does not decrypt), with a key generated into DATA_DIR on first use
// (secrets/github-tokens.key, mode 0600). It is never shown back: the API says only whether one is set.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";

const VERSION = "v1";

export function createGitHubTokenStore(deps: { db: Db; config: Config }) {
  const keyFile = path.join(deps.config.dataDir, "secrets", "github-tokens.key");
  let key: Buffer | undefined;

  function keyOf(): Buffer {
    if (key) return key;
    fs.mkdirSync(path.dirname(keyFile), { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(keyFile, randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    key = Buffer.from(fs.readFileSync(keyFile, "utf8").trim(), "base64");
    if (key.length !== 32) throw new Error(`${keyFile} does not hold a 256-bit key`);
    return key;
  }

  return {
    encrypt(appId: string, token: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", keyOf(), iv).setAAD(Buffer.from(appId));
      const sealed = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
      return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), sealed.toString("base64")].join(":");
    },

    /** The app's own token (a preview app uses its parent's), else the operator's, else none. */
    async tokenFor(appId: string): Promise<string | null> {
      const app = await deps.db.app.findUnique({ where: { id: appId }, select: { id: true, githubToken: true, previewOf: { select: { id: true, githubToken: true } } } });
      const owner = app?.previewOf ?? app;
      return (owner?.githubToken ? decrypt(owner.id, owner.githubToken) : null) ?? deps.config.githubToken ?? null;
    },
  };

  function decrypt(appId: string, stored: string): string | null {
    const [version, iv, tag, sealed] = stored.split(":");
    if (version !== VERSION || !iv || !tag || sealed === undefined) return null;
    try {
      const decipher = createDecipheriv("aes-256-gcm", keyOf(), Buffer.from(iv, "base64")).setAAD(Buffer.from(appId));
      decipher.setAuthTag(Buffer.from(tag, "base64"));
      return Buffer.concat([decipher.update(Buffer.from(sealed, "base64")), decipher.final()]).toString("utf8");
    } catch {
      return null; // another key (DATA_DIR replaced): as if no token were set
    }
  }
}

export type GitHubTokenStore = ReturnType<typeof createGitHubTokenStore>;
