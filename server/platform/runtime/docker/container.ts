// One hardened container: created, attached (its output demultiplexed into the sink from the first byte), started,
// waited for, removed. Shared by builds (the release folder bind-mounted at /app) and instances (the release image).
import os from "node:os";
import type Dockerode from "dockerode";
import type { ExitInfo, OutputSink, SandboxLimits } from "../types.ts";
import { type Docker, demultiplex, isNotFound } from "./client.ts";
import { APP_USER } from "./base-image.ts";

export interface ContainerSpec {
  name: string;
  image: string;
  argv: string[];
  env: Record<string, string>;
  labels: Record<string, string>;
  network: string;
  limits: SandboxLimits;
  /** host path → path in the container, read-write. */
  binds: [string, string][];
  onOutput: OutputSink;
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
}

/** What every container of an app gets: the sandbox in Engine API terms. */
export function hardenedConfig(spec: ContainerSpec): Dockerode.ContainerCreateOptions {
  const { memoryBytes, cpuPercent, pids } = spec.limits;
  return {
    name: spec.name,
    Image: spec.image,
    Entrypoint: [],
    Cmd: spec.argv,
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    User: `${APP_USER.uid}:${APP_USER.gid}`,
    WorkingDir: "/app",
    Labels: spec.labels,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    OpenStdin: false,
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
      Binds: spec.binds.map(([host, inside]) => `${host}:${inside}:rw`),
      IpcMode: "private",
      Privileged: false,
      RestartPolicy: { Name: "no" },
      LogConfig: { Type: "none", Config: {} },
    },
  };
}

export async function runContainer(docker: Docker, spec: ContainerSpec): Promise<RunningContainer> {
  const container = await docker.createContainer(hardenedConfig(spec));
  try {
    const stream = (await container.attach({ stream: true, stdout: true, stderr: true, logs: false })) as NodeJS.ReadableStream;
    const output = demultiplex(stream as never, spec.onOutput);
    await container.start();
    const info = await container.inspect();
    let done = false;
    const exited = waitAndRemove(container, output).finally(() => (done = true));
    return {
      id: container.id,
      pid: info.State.Pid,
      address: info.NetworkSettings.Networks[spec.network]?.IPAddress ?? "",
      exited,
      hasExited: () => done,
      signal: (signal) => container.kill({ signal }).catch(() => {}),
    };
  } catch (error) {
    await container.remove({ force: true }).catch(() => {});
    throw error;
  }
}

async function waitAndRemove(container: Dockerode.Container, output: Promise<void>): Promise<ExitInfo> {
  let exit: ExitInfo = { code: null, signal: null };
  try {
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    const state = (await container.inspect()).State;
    exit = { ...codeToExit(StatusCode), oomKilled: state.OOMKilled };
    // The attach stream ends with the container; give it a moment to deliver the last bytes.
    await Promise.race([output, new Promise((resolve) => setTimeout(resolve, 2000))]);
  } catch (error) {
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
