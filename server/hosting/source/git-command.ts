// Runs git for the git source: an argv array (never a shell), a clean environment (no user or system config,
// no prompt, no hooks), a time limit and the deployment's abort signal. A token reaches git only as an HTTP
// header set through GIT_CONFIG_* variables of that one command, so it is in no argv, URL or log line.
import { spawn } from "node:child_process";
import { DeployCanceled, DeployError } from "../errors.ts";

export interface GitRun {
  cwd: string;
  /** `Authorization` header value for HTTP remotes, or none. */
  authorization?: string;
  deadline: number;
  signal: AbortSignal;
  /** Every output line, already redacted by the caller's `redact`. */
  log(line: string): void;
  redact(line: string): string;
}

export interface GitResult {
  code: number;
  /** stdout and stderr lines, redacted, in order. */
  lines: string[];
}

/** The hardening every invocation gets, before the subcommand. */
const SAFE_CONFIG = ["-c", "core.hooksPath=/dev/null", "-c", "submodule.recurse=false", "-c", "protocol.ext.allow=never", "-c", "core.fsmonitor=false"];

export function gitEnv(authorization?: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: "/nonexistent",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    SSH_ASKPASS: "/bin/false",
    LC_ALL: "C",
  };
  if (authorization) {
    env.GIT_CONFIG_COUNT = "1";
    env.GIT_CONFIG_KEY_0 = "http.extraHeader";
    env.GIT_CONFIG_VALUE_0 = `Authorization: ${authorization}`;
  }
  return env;
}

/** Runs `git <SAFE_CONFIG> <args>`; resolves with the exit code (never throws on a non-zero exit). */
export function runGit(args: string[], run: GitRun): Promise<GitResult> {
  if (run.signal.aborted) return Promise.reject(new DeployCanceled());
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...SAFE_CONFIG, ...args], {
      cwd: run.cwd,
      env: gitEnv(run.authorization),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let timedOut = false;
    const onLine = (raw: string) => {
      // Progress output rewrites its line with \r: keep the last state of each line.
      const text = run.redact(raw.split("\r").filter(Boolean).pop() ?? "").trimEnd();
      if (!text) return;
      lines.push(text);
      run.log(text);
    };
    for (const stream of [child.stdout, child.stderr]) {
      let pending = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        pending += chunk;
        const parts = pending.split("\n");
        pending = parts.pop()!;
        parts.forEach(onLine);
      });
      stream.on("end", () => pending && onLine(pending));
    }
    const kill = () => child.kill("SIGKILL");
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, Math.max(0, run.deadline - Date.now()));
    run.signal.addEventListener("abort", kill, { once: true });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new DeployError(`Could not run git on this platform (${error.message}).`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      run.signal.removeEventListener("abort", kill);
      if (run.signal.aborted) return reject(new DeployCanceled());
      if (timedOut) return reject(new DeployError("Fetching the repository took too long and was stopped: try again, or deploy a smaller repository."));
      resolve({ code: code ?? 1, lines });
    });
  });
}
