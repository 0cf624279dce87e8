// Starts one sandboxed process and follows it to its end. bwrap waits on its block fd until the platform
// has moved it (and its first child, the sandbox's pid 1) into the cgroup: nothing forks outside the limits.
// The platform then knows three host pids: bwrap (its child), the sandbox's pid 1 (reported on the status
// fd) and the command itself (pid 1's only child, found in /proc): SIGTERM goes to the command, because
// bwrap forwards no signal and a pid namespace's init ignores signals it has no handler for.
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { constants } from "node:os";
import type { Readable, Writable } from "node:stream";
import type { ExitInfo, OutputSink } from "../types.ts";
import { FD, SYNC_OPTIONS, bwrapOptions, launcherArgv, privilegeDropArgv, type SandboxCommand } from "./bwrap.ts";
import type { Cgroup } from "./cgroups.ts";

export interface Launched {
  /** The host pid of the command itself (what receives SIGTERM). */
  pid: number;
  /** Settles once every process of the sandbox has exited and its output was delivered. */
  exited: Promise<ExitInfo>;
  hasExited(): boolean;
  /** SIGKILL to every process of the sandbox. */
  killTree(): Promise<void>;
}

export interface LaunchOptions extends SandboxCommand {
  /** false: the command runs without bubblewrap (a partial sandbox the operator opted into). */
  bwrap: boolean;
  cgroup?: Cgroup;
  onOutput: OutputSink;
  /** Fed to the command's stdin; without it, stdin is empty. */
  stdin?: Readable;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function launch(options: LaunchOptions): Promise<Launched> {
  return options.bwrap ? launchBwrap(options) : launchUnwrapped(options);
}

async function launchBwrap(options: LaunchOptions): Promise<Launched> {
  const argv = launcherArgv(options);
  const child = spawn(argv[0], argv.slice(1), { stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe", "pipe", "pipe", "pipe"], env: {} });
  const closed = followExit(child, options.onOutput);
  const status = (child.stdio as unknown as Readable[])[FD.status];
  status.on("error", () => {});
  try {
    const started = Promise.race([firstStatus(status), closed.then(() => undefined)]);
    const { sandboxInit, pid } = await startSandbox(child, bwrapOptions(options), options.cgroup, started, { hasExited: closed.hasExited, stderrTail: closed.stderrTail });
    feedStdin(child, options.stdin);
    const killTree = async () => {
      await killSandbox(sandboxInit, options.cgroup);
      await closed;
    };
    return { pid, exited: closed.then(decodeExit), hasExited: closed.hasExited, killTree };
  } catch (error) {
    child.kill("SIGKILL");
    await closed;
    throw error;
  }
}

async function launchUnwrapped(options: LaunchOptions): Promise<Launched> {
  const command = [...privilegeDropArgv(options), ...options.argv];
  // Its own process group, so that the whole tree can be killed without a cgroup.
  const child = spawn(command[0], command.slice(1), { cwd: options.workDir, env: options.env, stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"], detached: true });
  const closed = followExit(child, options.onOutput);
  await new Promise<void>((resolve, reject) => child.once("spawn", resolve).once("error", reject));
  feedStdin(child, options.stdin);
  if (options.cgroup) await options.cgroup.join(child.pid!).catch(() => {}); // racy without bwrap's block fd
  return {
    pid: child.pid!,
    exited: closed,
    hasExited: closed.hasExited,
    async killTree() {
      signal(-child.pid!, "SIGKILL");
      if (options.cgroup) await options.cgroup.killAll();
      await closed;
    },
  };
}

/**
 * bwrap's start-up, whatever holds its output: its options go on FD.args; once it reports the sandbox's pid 1
 * (`sandboxInit`), both are moved into the cgroup, then let go on FD.block. Answers pid 1 and the command's pid.
 */
export async function startSandbox(
  child: ChildProcess,
  options: string[],
  cgroup: Cgroup | undefined,
  sandboxInit: Promise<number | undefined>,
  bwrap: { hasExited(): boolean; stderrTail(): string },
): Promise<{ sandboxInit: number; pid: number }> {
  const stdio = child.stdio as unknown as Writable[];
  // bwrap closes these once read: a reset there is no failure (the exit status tells what happened).
  for (const fd of [FD.block, FD.args]) stdio[fd].on("error", () => {});
  stdio[FD.args].end(`${[...options, ...SYNC_OPTIONS].join("\0")}\0`);
  const init = await sandboxInit;
  if (init === undefined) throw new Error("the sandbox did not start: " + bwrap.stderrTail());
  if (cgroup) {
    await cgroup.join(child.pid!);
    await cgroup.join(init);
  }
  stdio[FD.block].end("1");
  return { sandboxInit: init, pid: (await commandPid(init, bwrap.hasExited)) ?? init };
}

/** SIGKILL to the sandbox's pid 1 (the kernel then kills everything in its pid namespace) and to its cgroup. */
export async function killSandbox(sandboxInit: number, cgroup: Cgroup | undefined): Promise<void> {
  signal(sandboxInit, "SIGKILL");
  if (cgroup) await cgroup.killAll();
}

/** Pipes `stdin` into the child's; a child that exits before reading it all is no error. */
function feedStdin(child: ChildProcess, stdin: Readable | undefined): void {
  if (!stdin || !child.stdin) return;
  child.stdin.on("error", () => {});
  stdin.pipe(child.stdin);
}

type Closed = Promise<ExitInfo> & { hasExited(): boolean; stderrTail(): string };

function followExit(child: ChildProcess, onOutput: OutputSink): Closed {
  let done = false;
  let tail = "";
  child.stdout!.on("data", (chunk: Buffer) => onOutput("stdout", chunk));
  child.stderr!.on("data", (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-2000);
    onOutput("stderr", chunk);
  });
  const promise = new Promise<ExitInfo>((resolve) => {
    child.once("error", (error) => {
      tail += String(error);
      done = true;
      resolve({ code: null, signal: null });
    });
    child.once("close", (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  }) as Closed;
  promise.hasExited = () => done;
  promise.stderrTail = () => tail.trim();
  return promise;
}

/** bwrap's first status document: {"child-pid": N}, the sandbox's pid 1 as seen from the host. */
function firstStatus(stream: Readable): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /"child-pid":\s*(\d+)/.exec(text);
      if (match) {
        stream.off("data", onData);
        stream.resume(); // later documents (the exit code) are not needed: the exit status says it
        resolve(Number(match[1]));
      }
    };
    stream.on("data", onData);
    stream.once("close", () => resolve(undefined));
  });
}

async function commandPid(sandboxInit: number, hasExited: () => boolean): Promise<number | undefined> {
  for (let attempt = 0; attempt < 1000 && !hasExited(); attempt++) {
    const children = await readFile(`/proc/${sandboxInit}/task/${sandboxInit}/children`, "utf8").catch(() => "");
    const first = Number(children.trim().split(" ")[0]);
    if (first > 0) return first;
    await sleep(attempt < 50 ? 1 : 10);
  }
  return undefined;
}

/** bwrap exits with 128 + N when the command died of signal N, like a shell: say which signal it was. */
export function decodeExit(exit: ExitInfo): ExitInfo {
  if (exit.code === null || exit.code <= 128) return exit;
  const name = Object.entries(constants.signals).find(([, n]) => n === exit.code! - 128)?.[0];
  return name ? { code: null, signal: name as NodeJS.Signals } : exit;
}

export function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
