// Slipway as its own process (`server/main.ts`), for tests that kill or restart the platform: `kill -9`, SIGTERM,
// started again on the same DATA_DIR and database.
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { waitFor } from "./apps.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Starts the platform with exactly `env` (and PATH, HOME) and waits until its API answers at PUBLIC_URL. */
export function startPlatform(env: Record<string, string>, cleanups: (() => unknown)[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: os.tmpdir(), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", process.env.DEBUG_PLATFORM ? "inherit" : "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  if (process.env.DEBUG_PLATFORM) child.stderr!.on("data", (chunk) => process.stderr.write(chunk));
  cleanups.push(() => void child.kill("SIGKILL"));
  return waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the platform exited: ${stderr}`);
      const ok = await fetch(`${env.PUBLIC_URL}/api/openapi.json`).then((r) => r.ok, () => false);
      return ok && child;
    },
    60_000,
    "the platform to listen",
  );
}

/** Sends `signal` and waits for the process to exit and its port to close. */
export async function stopPlatform(platform: ChildProcess, signal: "SIGKILL" | "SIGTERM", base: string): Promise<void> {
  const exited = new Promise((resolve) => platform.once("exit", resolve));
  platform.kill(signal);
  await exited;
  await waitFor(async () => !(await fetch(`${base}/api/openapi.json`).then(() => true, () => false)), 10_000, "the old platform's port to close");
}
