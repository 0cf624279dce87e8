// One hardened container: created, attached (its output demultiplexed into the sink from the first byte), started,
// waited for, removed. An interactive run's container has a TTY instead: its stdin is the user's keys, its output
// one raw stream, its window follows the user's (tini, its pid 1, hands the TTY's foreground to the command, so
// Ctrl-C interrupts the command). Shared by builds (the release folder bind-mounted at /app) and instances (the release image);
// an instance left running by an earlier platform is adopted: attached again, then waited for likewise.
import os from "node:os";
import type { Duplex, Readable } from "node:stream";
import type Dockerode from "dockerode";
import type { ExitInfo, OutputSink, RunTerminal, SandboxLimits, TerminalSize } from "../types.ts";
import { type Docker, demultiplex, isNotFound } from "./client.ts";
import { APP_USER } from "./base-image.ts";

export type Bind = [host: string, inside: string, mode?: "ro" | "rw"];

export interface ContainerSpec {
  name: string;
  image: string;
  /** An image built from the user's Dockerfile: its WORKDIR stays (Slipway's own images work in /app). */
  userImage?: boolean;
  /** Empty: the image's own ENTRYPOINT/CMD. */
  argv: string[];
  env: Record<string, string>;
  labels: Record<string, string>;
  network: string;
  limits: SandboxLimits;
  /** host path → path in the container, read-write. */
  /** [host path, path inside, "ro" for read-only (default read-write)]. */
  binds: Bind[];
  onOutput: OutputSink;
  /** Runs the command on a TTY: what it writes goes to onOutput as stdout. */
  terminal?: RunTerminal;
}

export interface RunningContainer {
  id: string;
  pid: number;
  /** Its address on the app network. */
  address: string;
  /** Settles once it exited and its output was delivered; the container is removed by then. */
  exited: Promise<ExitInfo>;
  hasExited(): boolean;
  signal(signal: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Stops following it (the platform shuts down; the container keeps running): `exited` never settles then. */
  detach(): void;
}

/** What every container of an app gets: the sandbox in Engine API terms. */
export function hardenedConfig(spec: ContainerSpec, consoleSize?: TerminalSize): Dockerode.ContainerCreateOptions {
  const { memoryBytes, cpuPercent, pids } = spec.limits;
  const tty = !!consoleSize;
  return {
    name: spec.name,
    Image: spec.image,
    ...(spec.argv.length ? { Entrypoint: [], Cmd: spec.argv } : {}),
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    // Whatever USER the image names: the sandbox's user.
    User: `${APP_USER.uid}:${APP_USER.gid}`,
    ...(spec.userImage ? {} : { WorkingDir: "/app" }),
    Labels: spec.labels,
    AttachStdin: tty,
    AttachStdout: true,
    AttachStderr: true,
    Tty: tty,
    OpenStdin: tty,
    HostConfig: {
      NetworkMode: spec.network,
      ReadonlyRootfs: true,
      Tmpfs: { "/tmp": "rw,nosuid,nodev,size=64m,mode=1777" },
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      Memory: memoryBytes,
      MemorySwap: memoryBytes,
      NanoCpus: Math.round((cpuPercent / 100) * 1e9),
      PidsLimit: pids,
      // A tiny init (tini) as PID 1: the app gets SIGTERM's default action and zombies are reaped.
      Init: true,
      Binds: spec.binds.map(([host, inside, mode = "rw"]) => `${host}:${inside}:${mode}`),
      IpcMode: "private",
      Privileged: false,
      RestartPolicy: { Name: "no" },
      LogConfig: { Type: "none", Config: {} },
      ...(consoleSize ? { ConsoleSize: [consoleSize.rows, consoleSize.cols] } : {}),
    },
  };
}

export async function runContainer(docker: Docker, spec: ContainerSpec): Promise<RunningContainer> {
  let size: TerminalSize | undefined;
  let started = false;
  const resize = (to: TerminalSize) => container.resize({ h: to.rows, w: to.cols }).catch(() => {});
  spec.terminal?.watchSize((next) => (started ? void resize(next) : (size = next)));
  const container = await docker.createContainer(hardenedConfig(spec, size));
  try {
    return await follow(container, spec.network, spec.onOutput, async () => {
      await container.start();
      // Engines before API 1.42 ignore ConsoleSize: the TTY gets its size right after the start, as `docker run -t` does.
      if (size) await resize(size);
      started = true;
    }, spec.terminal);
  } catch (error) {
    await container.remove({ force: true }).catch(() => {});
    throw error;
  }
}

/**
 * A container an earlier platform started and left running (adopted after a restart): its output from now on goes
 * to the sink (what it wrote while no platform listened is lost); null if it stopped meanwhile.
 */
export async function adoptContainer(docker: Docker, id: string, network: string, onOutput: OutputSink): Promise<RunningContainer | null> {
  const container = docker.getContainer(id);
  const running = await follow(container, network, onOutput, async () => {}).catch((error: unknown) => {
    // Gone (404), or no longer running (409: no attach to a stopped container).
    if (isNotFound(error) || (error as { statusCode?: number })?.statusCode === 409) return null;
    throw error;
  });
  if (running && running.pid === 0) {
    // It exited between the listing and the attach: not adopted (reap() removes it).
    running.detach();
    return null;
  }
  return running;
}

/** Attaches (stream only, no past output), runs `start`, inspects, and waits for the end in the background. */
async function follow(container: Dockerode.Container, network: string, onOutput: OutputSink, start: () => Promise<unknown>, terminal?: RunTerminal): Promise<RunningContainer> {
  const attach = { stream: true, stdout: true, stderr: true, logs: false, ...(terminal ? { stdin: true, hijack: true } : {}) };
  const stream = (await container.attach(attach)) as unknown as Duplex;
  try {
    const output = terminal ? rawOutput(stream, onOutput) : demultiplex(stream, onOutput);
    await start();
    if (terminal) typeInto(container, stream, terminal);
    const info = await container.inspect();
    const detached = new AbortController();
    let done = false;
    const exited = waitAndRemove(container, output, detached.signal).finally(() => (done = true));
    return {
      id: container.id,
      pid: info.State.Running ? info.State.Pid : 0,
      address: info.NetworkSettings.Networks[network]?.IPAddress ?? "",
      exited,
      hasExited: () => done,
      signal: (signal) => container.kill({ signal }).catch(() => {}),
      detach: () => {
        detached.abort();
        stream.destroy();
      },
    };
  } catch (error) {
    stream.destroy();
    throw error;
  }
}

/** A TTY's output: one stream, as it comes. */
function rawOutput(stream: Readable, onOutput: OutputSink): Promise<void> {
  stream.on("data", (chunk: Buffer) => onOutput("stdout", chunk));
  return new Promise((resolve) => {
    stream.on("end", resolve);
    stream.on("close", resolve);
    stream.on("error", () => resolve());
  });
}

/** The user's keys go to the TTY; their end hangs the command up, as a closed terminal does. */
function typeInto(container: Dockerode.Container, stream: Duplex, terminal: RunTerminal): void {
  stream.on("error", () => {});
  terminal.keys.on("data", (keys: Buffer) => stream.writable && stream.write(keys));
  terminal.keys.once("end", () => void container.kill({ signal: "SIGHUP" }).catch(() => {}));
}

/** Settles once the container exited and was removed; never when detached (the container outlives this platform). */
async function waitAndRemove(container: Dockerode.Container, output: Promise<void>, detached: AbortSignal): Promise<ExitInfo> {
  let exit: ExitInfo = { code: null, signal: null };
  try {
    const { StatusCode } = (await container.wait({ abortSignal: detached })) as { StatusCode: number };
    const state = (await container.inspect()).State;
    exit = { ...codeToExit(StatusCode), oomKilled: state.OOMKilled };
    // The attach stream ends with the container; give it a moment to deliver the last bytes.
    await Promise.race([output, new Promise((resolve) => setTimeout(resolve, 2000))]);
  } catch (error) {
    if (detached.aborted) return new Promise<ExitInfo>(() => {});
    if (!isNotFound(error)) throw error;
  }
  await container.remove({ force: true }).catch(() => {});
  return exit;
}

/** 128+n is "killed by signal n" (tini and the engine report it so). */
function codeToExit(code: number): { code: number | null; signal: NodeJS.Signals | null } {
  if (code > 128 && code < 160) {
    const name = Object.entries(os.constants.signals).find(([, n]) => n === code - 128)?.[0];
    if (name) return { code: null, signal: name as NodeJS.Signals };
  }
  return { code, signal: null };
}
