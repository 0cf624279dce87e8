// App instances that outlive the platform (as containerd-shim keeps a container running for containerd), with no
// extra process per instance: bwrap's own monitor process holds the sandbox (no --die-with-parent), a named pipe
// per stream holds its output, and bwrap writes the exit code into a status file. The sandbox holds both ends of
// its pipes, so a write never fails while no platform reads them: past a pipe's 64 KiB it waits for the next
// platform, as Docker's blocking log mode does. A record beside them says what runs there; the next platform on
// the same DATA_DIR opens the pipes again (adopt) or kills what it does not adopt (reap).
import { execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, constants as fsConstants, openSync, watch } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import type { ExitInfo, OutputSink, OutputStream } from "../types.ts";
import { bwrapOptions, launcherArgv } from "./bwrap.ts";
import type { Cgroup } from "./cgroups.ts";
import { decodeExit, killSandbox, signal, startSandbox, type LaunchOptions, type Launched } from "./launch.ts";
import { processStartTime } from "./slots.ts";

const STREAMS: OutputStream[] = ["stdout", "stderr"];
const RECORD = "instance.json";
const STATUS = "status";
/** PipePool's folder below the instances' (not an instance: no record). */
export const SPARE = ".spare";

/** What a later platform needs to find, adopt or kill an instance. */
export interface KeptRecord {
  instanceId: string;
  appKey: string;
  slot: number;
  process: string;
  index?: number;
  /** instanceFingerprint(): adopted only by a start that would run the same thing. */
  fingerprint: string;
  port: number;
  /** bwrap's monitor process; its start time tells it from a later process given the same pid. */
  monitor: { pid: number; startTime: number };
  /** The sandbox's pid 1 (SIGKILL ends the whole pid namespace) and the command (SIGTERM). */
  sandboxInit: number;
  commandPid: number;
  /** The instance's cgroup below each controller's mount. */
  cgroup?: string;
}

/** A launched instance that can be let go: the platform stops reading it, it keeps running. */
export interface KeptLaunch extends Launched {
  sandboxInit: number;
  monitor: { pid: number; startTime: number };
  detach(): void;
}

/** The folder of every kept instance of this DATA_DIR (and the pipe pool's, SPARE). */
export function keptRoot(dataDir: string): string {
  return path.join(dataDir, "instances");
}

function folderOf(root: string, instanceId: string): string {
  if (!/^[\w-]+$/.test(instanceId)) throw new Error(`invalid instance id ${JSON.stringify(instanceId)}`);
  return path.join(root, instanceId);
}

/**
 * Named pipes made ahead (a mkfifo command costs a fork of the platform's process): an instance's start renames a
 * spare pair into its folder, and the pool refills in the background, a few pairs per command.
 */
export class PipePool {
  private readonly spare: string[] = [];
  private filling: Promise<void> | null = null;
  /** The first fill removes the pairs an earlier platform made and did not use. */
  private cleared = false;

  constructor(
    private readonly dir: string,
    private readonly size = 4,
  ) {}

  /** Moves a pair of pipes to `<dir>/stdout` and `<dir>/stderr`. */
  async take(dir: string): Promise<void> {
    if (!this.spare.length) await this.fill();
    const pair = this.spare.shift()!;
    void this.fill().catch(() => {});
    await Promise.all(STREAMS.map((stream) => fs.rename(path.join(pair, stream), path.join(dir, stream))));
    await fs.rm(pair, { recursive: true, force: true });
  }

  private fill(): Promise<void> {
    this.filling ??= this.make().finally(() => (this.filling = null));
    return this.filling;
  }

  private async make(): Promise<void> {
    if (!this.cleared) await fs.rm(this.dir, { recursive: true, force: true });
    this.cleared = true;
    const pairs = Array.from({ length: this.size - this.spare.length }, () => path.join(this.dir, randomUUID()));
    if (!pairs.length) return;
    await Promise.all(pairs.map((pair) => fs.mkdir(pair, { recursive: true, mode: 0o700 })));
    await promisify(execFile)("mkfifo", ["-m", "600", ...pairs.flatMap((pair) => STREAMS.map((stream) => path.join(pair, stream)))]);
    this.spare.push(...pairs);
  }
}

/** Starts a sandboxed instance that outlives the platform, its output in named pipes under `root`/<instanceId>. */
export async function launchKept(options: LaunchOptions & { root: string; instanceId: string; pipes: PipePool }): Promise<KeptLaunch> {
  const dir = folderOf(options.root, options.instanceId);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const pipes = STREAMS.map((stream) => path.join(dir, stream));
  await options.pipes.take(dir);
  // A writer first: a pipe's reader with no writer yet would read its end at once.
  const writers = pipes.map((pipe) => openSync(pipe, fsConstants.O_RDWR));
  const output = followOutput(pipes, options.onOutput);
  const status = openSync(path.join(dir, STATUS), "w", 0o600);
  const argv = launcherArgv(options);
  const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", writers[0], writers[1], status, "pipe", "pipe"], env: {}, detached: true });
  const childExit = new Promise<ExitInfo>((resolve) => {
    child.once("error", () => resolve({ code: null, signal: null }));
    child.once("exit", (code, signalName) => resolve({ code, signal: signalName }));
  });
  let childDone = false;
  void childExit.then(() => (childDone = true));
  for (const fd of [...writers, status]) closeSync(fd);
  child.unref();
  try {
    const started = sandboxInitOf(dir, () => childDone);
    const { sandboxInit, pid } = await startSandbox(child, bwrapOptions({ ...options, outlivesPlatform: true }), options.cgroup, started, {
      hasExited: () => childDone,
      stderrTail: output.stderrTail,
    });
    const monitor = { pid: child.pid!, startTime: processStartTime(child.pid!) ?? 0 };
    return kept({ dir, pid, sandboxInit, monitor, output, cgroup: options.cgroup, fallbackExit: childExit });
  } catch (error) {
    child.kill("SIGKILL");
    await output.done;
    await fs.rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Follows an instance an earlier platform left running again; null when its monitor is gone (reap then kills the rest). */
export function reattachKept(root: string, record: KeptRecord, onOutput: OutputSink, cgroup: Cgroup | undefined): KeptLaunch | null {
  const dir = folderOf(root, record.instanceId);
  if (processStartTime(record.monitor.pid) !== record.monitor.startTime) return null;
  const output = followOutput(STREAMS.map((stream) => path.join(dir, stream)), onOutput);
  return kept({ dir, pid: record.commandPid, sandboxInit: record.sandboxInit, monitor: record.monitor, output, cgroup });
}

/**
 * Written before the launch (no pids yet: a platform dying mid-launch leaves its cgroup to kill) and again once it
 * runs.
 */
export async function writeRecord(root: string, record: KeptRecord): Promise<void> {
  const dir = folderOf(root, record.instanceId);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, RECORD);
  await fs.writeFile(`${file}.tmp`, JSON.stringify(record), { mode: 0o600 });
  await fs.rename(`${file}.tmp`, file);
}

/** Every instance record under `root` (a folder without one is an instance that never finished starting). */
export async function readRecords(root: string): Promise<{ records: KeptRecord[]; unrecorded: string[] }> {
  const records: KeptRecord[] = [];
  const unrecorded: string[] = [];
  for (const name of await fs.readdir(root).catch(() => [] as string[])) {
    if (name === SPARE) continue;
    const text = await fs.readFile(path.join(root, name, RECORD), "utf8").catch(() => null);
    if (text === null) unrecorded.push(name);
    else records.push(JSON.parse(text) as KeptRecord);
  }
  return { records, unrecorded };
}

/** Kills a recorded instance no platform adopted, whatever is left of it, and removes its folder. */
export async function killKept(root: string, record: KeptRecord, cgroup: Cgroup | undefined): Promise<void> {
  if (processStartTime(record.monitor.pid) === record.monitor.startTime) signal(record.sandboxInit, "SIGKILL");
  await cgroup?.remove();
  await fs.rm(folderOf(root, record.instanceId), { recursive: true, force: true });
}

function kept(parts: {
  dir: string;
  pid: number;
  sandboxInit: number;
  monitor: KeptLaunch["monitor"];
  output: Output;
  cgroup: Cgroup | undefined;
  /** Our own child's exit, when bwrap's status file does not have it (bwrap itself was killed). */
  fallbackExit?: Promise<ExitInfo>;
}): KeptLaunch {
  const { dir, sandboxInit, output, cgroup } = parts;
  let exitedFlag = false;
  let detached = false;
  const killTree = () => killSandbox(sandboxInit, cgroup);
  // What the command left behind goes with it: bwrap's pid 1 outlives its command while other processes remain
  // (with --die-with-parent the kernel ended them once bwrap's monitor exited).
  const commandExit = watchExitCode(dir, () => void (detached ? undefined : killTree()));
  const exited = output.done.then(async () => {
    commandExit.close();
    const fromStatus = exitCodeOf(await fs.readFile(path.join(dir, STATUS), "utf8").catch(() => ""));
    const exit = fromStatus ?? (parts.fallbackExit ? await parts.fallbackExit : { code: null, signal: "SIGKILL" as const });
    exitedFlag = true;
    await fs.rm(dir, { recursive: true, force: true });
    return decodeExit(exit);
  });
  return {
    pid: parts.pid,
    sandboxInit,
    monitor: parts.monitor,
    exited,
    hasExited: () => exitedFlag,
    async killTree() {
      await killTree();
      await exited;
    },
    detach() {
      detached = true;
      commandExit.close();
      output.detach();
    },
  };
}

/** Calls `onExit` once bwrap wrote the command's exit code into the status file (now, or when it does). */
function watchExitCode(dir: string, onExit: () => void): { close(): void } {
  const file = path.join(dir, STATUS);
  let done = false;
  const check = () =>
    void fs.readFile(file, "utf8").then((text) => {
      if (done || !exitCodeOf(text)) return;
      done = true;
      watcher.close();
      onExit();
    }, () => {});
  const watcher = watch(file, check);
  watcher.on("error", () => {});
  check();
  return {
    close() {
      done = true;
      watcher.close();
    },
  };
}

/** bwrap's last status document, {"exit-code": N}, once the sandbox ended. */
function exitCodeOf(status: string): ExitInfo | null {
  const match = /"exit-code":\s*(\d+)/.exec(status);
  return match ? { code: Number(match[1]), signal: null } : null;
}

/** bwrap's first status document, {"child-pid": N}: the sandbox's pid 1 as seen from the host. */
async function sandboxInitOf(dir: string, hasExited: () => boolean): Promise<number | undefined> {
  for (let attempt = 0; attempt < 5000; attempt++) {
    const match = /"child-pid":\s*(\d+)/.exec(await fs.readFile(path.join(dir, STATUS), "utf8").catch(() => ""));
    if (match) return Number(match[1]);
    if (hasExited()) return undefined;
    await new Promise((resolve) => setTimeout(resolve, attempt < 100 ? 1 : 10));
  }
  return undefined;
}

interface Output {
  /** Settles once every writer of both pipes is gone (the whole sandbox ended), unless detached first. */
  done: Promise<void>;
  stderrTail(): string;
  /** Stops reading; `done` then never settles. */
  detach(): void;
}

/** Reads the instance's pipes (without blocking a thread: a pipe is polled like a socket). */
function followOutput(pipes: string[], onOutput: OutputSink): Output {
  let tail = "";
  let detached = false;
  const sockets = pipes.map((pipe) => new net.Socket({ fd: openSync(pipe, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK), readable: true, writable: false }));
  const ended = sockets.map((socket, i) => {
    const stream = STREAMS[i];
    socket.on("data", (chunk: Buffer) => {
      if (stream === "stderr") tail = (tail + chunk.toString()).slice(-2000);
      onOutput(stream, chunk);
    });
    return new Promise<void>((resolve) => {
      socket.once("error", () => {});
      socket.once("close", () => resolve());
    });
  });
  const all = Promise.all(ended).then(() => undefined);
  return {
    done: new Promise<void>((resolve) => void all.then(() => (detached ? undefined : resolve()))),
    stderrTail: () => tail.trim(),
    detach() {
      detached = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}
