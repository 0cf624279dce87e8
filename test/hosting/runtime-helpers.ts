// Helpers for tests that run real sandboxed processes through the local runtime driver.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SERVICE_ADDRESS } from "../../server/platform/runtime/local/network.ts";
import type { OutputSink, SandboxLimits } from "../../server/platform/runtime/types.ts";

export const LIMITS: SandboxLimits = { memoryBytes: 256 * 1024 * 1024, cpuPercent: 100, pids: 64 };

export const isRoot = process.getuid?.() === 0;

/** A DATA_DIR as the tests make it (mkdtemp: mode 0700). */
export function makeDataDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), "slipway-runtime-"));
}

/** A release directory below DATA_DIR/apps holding the given files. */
export function makeRelease(dataDir: string, name: string, files: Record<string, string>): string {
  const dir = path.join(dataDir, "apps", name, "release");
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return dir;
}

export interface Output {
  sink: OutputSink;
  text(stream?: "stdout" | "stderr"): string;
}

export function collectOutput(): Output {
  const chunks: { stream: "stdout" | "stderr"; chunk: Buffer }[] = [];
  return {
    sink: (stream, chunk) => chunks.push({ stream, chunk }),
    text: (stream) =>
      Buffer.concat(chunks.filter((c) => !stream || c.stream === stream).map((c) => c.chunk)).toString("utf8"),
  };
}

/** The last line of output that parses as JSON (what the probe scripts print). */
export function lastJson<T>(output: Output): T {
  const lines = output.text("stdout").trim().split("\n");
  return JSON.parse(lines[lines.length - 1]) as T;
}

export async function waitForHttp(url: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      return await response.text();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** The slot an app got, from its address (10.201.0.0 + 4 × slot + 2). */
export function slotOf(address: string): number {
  const [a, b, c, d] = address.split(".").map(Number);
  return ((((a << 24) | (b << 16) | (c << 8) | d) >>> 0) - (((10 << 24) | (201 << 16)) >>> 0) - 2) / 4;
}

/**
 * leftovers(slot) for a slot a platform of `dataDir` held: empty when another platform (a test file running
 * beside this one) has claimed the freed slot since, since its namespace and veth are then its own.
 */
export function leftoversOf(slot: number, dataDir: string): string[] {
  if (claimedByAnother(slot, dataDir)) return [];
  const found = leftovers(slot);
  // Another platform (a test file running in parallel) may have claimed the freed slot while we looked.
  return found.length > 0 && claimedByAnother(slot, dataDir) ? [] : found;
}

/** Whether the slot's claim names another DATA_DIR (or is being written by another claimant: ours was removed). */
function claimedByAnother(slot: number, dataDir: string): boolean {
  for (let attempt = 0; attempt < 10; attempt++) {
    let text: string;
    try {
      text = readFileSync(`/run/slipway/slots/${slot}`, "utf8");
    } catch {
      return false; // no claim
    }
    try {
      return (JSON.parse(text) as { dataDir?: string }).dataDir !== dataDir;
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50); // being written: read it again
    }
  }
  return true;
}

/** Everything of a slot still on the host: namespace, veth, cgroups, firewall mentions (the range and the shared service address aside), claim. */
export function leftovers(slot: number): string[] {
  const found: string[] = [];
  const netns = execFileSync("ip", ["netns", "list"], { encoding: "utf8" });
  if (netns.split("\n").some((line) => line.split(" ")[0] === `slipway-${slot}`)) found.push(`netns slipway-${slot}`);
  const links = execFileSync("ip", ["-o", "link", "show"], { encoding: "utf8" });
  if (new RegExp(`: swh${slot}[@:]`).test(links)) found.push(`veth swh${slot}`);
  for (const controller of readdirSync("/sys/fs/cgroup")) {
    const dir = path.join("/sys/fs/cgroup", controller, "slipway", String(slot));
    if (existsSync(dir)) found.push(`cgroup ${dir}`);
  }
  if (new RegExp(`\\bswh${slot}\\b|10\\.201\\.`).test(execFileSync("nft", ["list", "ruleset"], { encoding: "utf8" }).replace(/10\.201\.0\.0\/16/g, "").replaceAll(SERVICE_ADDRESS, ""))) {
    found.push("an nftables entry for the app");
  }
  if (existsSync(`/run/slipway/slots/${slot}`)) found.push(`claim /run/slipway/slots/${slot}`);
  return found;
}

/**
 * Host processes running as this uid, zombies aside: bwrap's outer process exits as soon as the sandbox's
 * pid 1 reports the exit code, so that pid 1 is reparented to the host's init and waits there, dead and
 * holding nothing, until init reaps it (up to a second or two on these machines).
 */
export function processesOf(uid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, "utf8");
        return new RegExp(`^Uid:\\s+${uid}\\s`, "m").test(status) && !/^State:\s+Z/m.test(status);
      } catch {
        return false;
      }
    })
    .map(Number);
}
