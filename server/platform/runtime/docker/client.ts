// The Engine API client (dockerode), shared by the docker and swarm drivers: where the engine is (DOCKER_HOST or the
// local socket), the labels Slipway puts on what it creates, and the few stream helpers the API needs
// (build/import progress, the multiplexed stdout/stderr of a container). Never the docker CLI.
import { createHash } from "node:crypto";
import path from "node:path";
import type { Readable } from "node:stream";
import Docker from "dockerode";

export type { default as Docker } from "dockerode";

/** Labels on every container, network and image Slipway creates. */
export const LABEL = {
  /** Which platform (a hash of its DATA_DIR) owns it: reap() removes only its own. */
  platform: "slipway.platform",
  app: "slipway.app",
  instance: "slipway.instance",
  /** "build", "web", "process" (another process type), "base" or "release". */
  kind: "slipway.kind",
  /** A "process" container's type (worker, clock, …). */
  process: "slipway.process",
  /** Web containers: what a restarted platform matches before it adopts one (fingerprint.ts). */
  deployment: "slipway.deployment",
  /** Which instance of the app (N of web.N). */
  index: "slipway.index",
  fingerprint: "slipway.fingerprint",
} as const;

/** A client for DOCKER_HOST: unix:///path, tcp://host:port (http), or the local socket when unset. */
export function createDockerClient(dockerHost?: string): Docker {
  if (!dockerHost) return new Docker({ socketPath: "/var/run/docker.sock" });
  const url = new URL(dockerHost);
  if (url.protocol === "unix:") return new Docker({ socketPath: url.pathname });
  if (url.protocol === "tcp:" || url.protocol === "http:") return new Docker({ host: url.hostname, port: Number(url.port || 2375), protocol: "http" });
  if (url.protocol === "https:") return new Docker({ host: url.hostname, port: Number(url.port || 2376), protocol: "https" });
  throw new Error(`DOCKER_HOST: expected unix:///path/to/docker.sock or tcp://host:port, not ${dockerHost}`);
}

/** Resolves when the engine answers /_ping, or throws with what went wrong (for the boot log and test skips). */
export async function pingDocker(docker: Docker): Promise<void> {
  await docker.ping();
}

/** The id of a platform on an engine: the same DATA_DIR gives the same id after a restart. */
export function platformId(dataDir: string): string {
  return createHash("sha256").update(path.resolve(dataDir)).digest("hex").slice(0, 12);
}

/** Waits for a build or import to finish; its progress messages go to onLine, an error message throws. */
export function followProgress(docker: Docker, stream: Readable, onLine?: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null, events: { error?: string; errorDetail?: { message?: string } }[]) => {
        if (error) return reject(error);
        const failed = events.find((e) => e.error || e.errorDetail);
        if (failed) return reject(new Error(failed.errorDetail?.message ?? failed.error));
        resolve();
      },
      (event: { stream?: string }) => {
        if (onLine && event.stream?.trim()) onLine(event.stream.trim());
      },
    );
  });
}

/**
 * Splits the multiplexed stream of a container without a TTY (8-byte frames: stream type, 3 zero bytes, big-endian
 * size) into stdout and stderr chunks. Resolves when the stream ends.
 */
export function demultiplex(stream: Readable, onChunk: (stream: "stdout" | "stderr", chunk: Buffer) => void): Promise<void> {
  let pending: Buffer = Buffer.alloc(0);
  return new Promise((resolve) => {
    stream.on("data", (data: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, data]) : data;
      while (pending.length >= 8) {
        const size = pending.readUInt32BE(4);
        if (pending.length < 8 + size) break;
        const type = pending[0];
        if (size > 0 && (type === 1 || type === 2)) onChunk(type === 2 ? "stderr" : "stdout", pending.subarray(8, 8 + size));
        pending = pending.subarray(8 + size);
      }
    });
    stream.on("end", resolve);
    stream.on("close", resolve);
    stream.on("error", () => resolve());
  });
}

/** Whether an Engine API error is a 404 (no such container, image or network). */
export function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: number })?.statusCode === 404;
}

/** "slipway/app:d1" → ["slipway/app", "d1"] (the last colon: a registry's host:port stays in the repository). */
export function splitTag(tag: string): [string, string] {
  const at = tag.lastIndexOf(":");
  return [tag.slice(0, at), tag.slice(at + 1)];
}
