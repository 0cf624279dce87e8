// The stored login: $XDG_CONFIG_HOME/slipway/credentials.json (default ~/.config/slipway), mode 0600 in a 0700
// folder, replaced atomically (write a temp file, rename). A lock file serialises token refreshes so that two
// commands running at once never both spend the same (rotating) refresh token.
import { env } from "./env.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Credentials {
  server: string;
  clientId: string;
  accessToken: string;
  refreshToken: string | null;
  /** Epoch milliseconds. */
  expiresAt: number;
  user?: { name: string; email: string };
}

export function configDir(): string {
  const base = env.configHome() || path.join(os.homedir(), ".config");
  return path.join(base, "slipway");
}

export const credentialsPath = () => path.join(configDir(), "credentials.json");

export function readCredentials(): Credentials | null {
  try {
    return JSON.parse(fs.readFileSync(credentialsPath(), "utf8")) as Credentials;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}

export function writeCredentials(credentials: Credentials): void {
  const dir = configDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = credentialsPath();
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temp, 0o600);
  fs.renameSync(temp, file);
}

export function deleteCredentials(): void {
  fs.rmSync(credentialsPath(), { force: true });
}

const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 60_000;

/** Runs `work` holding the credentials lock (a file created with O_EXCL); a lock older than 30 s is stale. */
export async function withCredentialsLock<T>(work: () => Promise<T>): Promise<T> {
  const dir = configDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = path.join(dir, "credentials.lock");
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: "wx", mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > LOCK_STALE_MS) fs.rmSync(lock, { force: true });
      } catch {
        // removed meanwhile: try again
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for the lock ${lock}; remove it if no other slipway command is running.`);
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 50));
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}
