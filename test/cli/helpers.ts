// Runs the real `slipway` binary (bin/slipway.js) as a child process with its own HOME and XDG_CONFIG_HOME,
// and completes its device login by approving the code over HTTP as the user (session cookie, the real pages).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import type { Client } from "../helpers/client.ts";
import { form, hiddenInputs } from "../oauth/helpers.ts";

export const BIN = path.resolve(import.meta.dirname, "../../bin/slipway.js");

export interface CliHome {
  home: string;
  configDir: string;
  cwd: string;
  env: Record<string, string>;
}

export function cliHome(): CliHome {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-cli-"));
  const cwd = path.join(home, "project");
  fs.mkdirSync(cwd);
  const configDir = path.join(home, ".config");
  return { home, cwd, configDir, env: { HOME: home, XDG_CONFIG_HOME: configDir } };
}

function childEnv(home: CliHome, extra: Record<string, string | undefined> = {}) {
  const env: Record<string, string | undefined> = { PATH: process.env.PATH, ...home.env, NO_COLOR: "1", ...extra };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env as NodeJS.ProcessEnv;
}

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when stdout matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export function startCli(home: CliHome, args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}): Running {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? home.cwd, env: childEnv(home, options.env), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      const match = out.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  child.stdout!.on("data", (c: Buffer) => {
    out += c;
    check();
  });
  child.stderr!.on("data", (c: Buffer) => (err += c));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout: out, stderr: err })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern} in stdout:\n${out}\nstderr:\n${err}`)), timeoutMs);
        waiters.push({ pattern, resolve: (m) => (clearTimeout(timer), resolve(m)) });
        check();
        void exited.then(() => setTimeout(() => reject(new Error(`exited before ${pattern}:\n${out}\n${err}`)), 10));
      });
    },
  };
}

export async function runCli(home: CliHome, args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}) {
  return startCli(home, args, options).exited;
}

/** Approves (or denies) a device code on /oauth/device as the signed-in user. */
export async function decideDevice(user: Client, userCode: string, decision: "approve" | "deny" = "approve") {
  const entry = await user.get("/oauth/device");
  expect(entry.status).toBe(200);
  const consent = await form(user, "/oauth/device", { csrf_token: hiddenInputs(entry.body).csrf_token, user_code: userCode });
  expect(consent.status, String(consent.body).slice(0, 300)).toBe(200);
  const done = await form(user, "/oauth/device", { ...hiddenInputs(consent.body), decision });
  expect(done.status).toBeLessThan(400);
}

/** `slipway login` run to the end, approved by `user`. */
export async function login(home: CliHome, serverUrl: string, user: Client, env: Record<string, string> = {}) {
  const running = startCli(home, ["login", "--server", serverUrl, "--no-browser"], { env });
  const [, code] = await running.waitFor(/enter the code: ([A-Z]{4}-[A-Z]{4})/);
  await decideDevice(user, code);
  const result = await running.exited;
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return result;
}

export function readStoredCredentials(home: CliHome) {
  return JSON.parse(fs.readFileSync(path.join(home.configDir, "slipway", "credentials.json"), "utf8"));
}
