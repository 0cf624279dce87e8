// Where a sandbox layer is missing (here: the platform does not run as root, so no uid per app, no cgroups,
// no network namespace), the driver says so and refuses apps unless the operator opted in with
// SANDBOX_ALLOW_PARTIAL=true; then it runs them with what is left (bubblewrap, unprivileged).
import { execFileSync } from "node:child_process";
import { chownSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxLayer } from "../../server/platform/runtime/types.ts";
import { isRoot, makeDataDir, makeRelease } from "./runtime-helpers.ts";

const NOBODY = 65534;

interface Report {
  layers: SandboxLayer[];
  logged: string[];
  started: boolean;
  error?: string;
  message?: string;
  answer?: string;
  target?: { host: string; port: number };
}

// As root, the test drops to nobody with setpriv to play a platform started by an ordinary user.
describe.runIf(isRoot)("local runtime driver without root", () => {
  let dataDir: string;
  let release: string;

  beforeAll(() => {
    dataDir = makeDataDir();
    release = makeRelease(dataDir, "partial", {});
    for (const dir of [dataDir, path.join(dataDir, "apps"), path.dirname(release), release]) chownSync(dir, NOBODY, NOBODY);
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const runAsNobody = (allowPartial: boolean): Report => {
    const script = path.join(import.meta.dirname, "fixtures/runtime-unprivileged.ts");
    const stdout = execFileSync(
      "/usr/bin/setpriv",
      [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", process.execPath, "--import", "tsx", script, dataDir, release, String(allowPartial)],
      { env: { PATH: "/usr/bin:/bin", HOME: "/tmp" }, encoding: "utf8", timeout: 30_000 },
    );
    return JSON.parse(stdout.trim().split("\n").pop()!) as Report;
  };

  it("reports the missing layers and refuses to start apps by default", () => {
    const report = runAsNobody(false);
    const missing = report.layers.filter((l) => !l.enforced).map((l) => l.name);
    expect(missing).toEqual(["user", "memory", "cpu", "pids", "freezer", "network"]);
    expect(report.layers.find((l) => l.name === "user")?.detail).toMatch(/does not run as root/);
    expect(report).toMatchObject({ started: false, error: "SandboxUnavailableError" });
    expect(report.message).toMatch(/SANDBOX_ALLOW_PARTIAL=true/);
    expect(report.logged.filter((l) => l.startsWith("info: local runtime: sandbox "))).toHaveLength(report.layers.length);
    expect(report.logged.at(-1)).toMatch(/^warn: apps and builds will be refused: the sandbox lacks user, memory/);
  });

  it("starts apps with what is available once the operator opted in", () => {
    const report = runAsNobody(true);
    expect(report.logged.at(-1)).toMatch(/^warn: SANDBOX_ALLOW_PARTIAL=true: apps run without user, memory/);
    expect(report).toMatchObject({ started: true, target: { host: "127.0.0.1" } });
    expect(report.answer).toBe(`uid ${NOBODY} false`); // still bubblewrap's filesystem: no /work
  });
});
