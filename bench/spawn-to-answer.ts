// Spawn to first HTTP answer of the same tiny Node app, plain (node started directly) and sandboxed by the
// local runtime driver (namespace and cgroup already made, as for every start after an app's first), as
// medians of N rounds. Needs root. `npx tsx bench/spawn-to-answer.ts [rounds]`, or call spawnToAnswer().
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createLocalDriver } from "../server/platform/runtime/local/driver.ts";

const APP = `require("http").createServer((req, res) => res.end("ok")).listen(process.env.PORT, process.env.HOST);`;
const LIMITS = { memoryBytes: 256 * 1024 * 1024, cpuPercent: 100, pids: 64 };

export interface SpawnToAnswer {
  rounds: number;
  plainMs: number;
  sandboxedMs: number;
  /** The first start of an app, which also creates its namespace, veth and cgroup. */
  firstSandboxedMs: number;
}

/** Polls `url` every 2 ms until it answers "ok": the milliseconds since `since`. */
export async function firstAnswer(url: string, since: number): Promise<number> {
  for (;;) {
    const ok = await fetch(url).then((r) => r.text(), () => undefined);
    if (ok === "ok") return performance.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function spawnToAnswer(rounds = 10): Promise<SpawnToAnswer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "slipway-bench-"));
  const release = path.join(dataDir, "apps", "bench", "release");
  mkdirSync(release, { recursive: true });
  writeFileSync(path.join(release, "server.js"), APP);
  const driver = await createLocalDriver({ dataDir, allowPartial: false });
  try {
    const plain: number[] = [];
    const sandboxed: number[] = [];
    let firstSandboxedMs = 0;
    for (let round = 0; round <= rounds; round++) {
      let since = performance.now();
      const child = spawn("/usr/bin/node", ["server.js"], { cwd: release, env: { PORT: "39123", HOST: "127.0.0.1" }, stdio: "ignore" });
      const plainMs = await firstAnswer("http://127.0.0.1:39123/", since);
      child.kill();
      await new Promise((resolve) => child.once("exit", resolve));

      since = performance.now();
      const instance = await driver.start({ appKey: "bench", instanceId: `r${round}`, workDir: release, argv: ["/usr/bin/node", "server.js"], env: {}, limits: LIMITS, onOutput: () => {} });
      const sandboxedMs = await firstAnswer(`http://${instance.target.host}:${instance.target.port}/`, since);
      await instance.stop();
      if (round === 0) firstSandboxedMs = sandboxedMs; // round 0 also warms the plain path up: not counted
      else {
        plain.push(plainMs);
        sandboxed.push(sandboxedMs);
      }
    }
    return { rounds, plainMs: median(plain), sandboxedMs: median(sandboxed), firstSandboxedMs };
  } finally {
    await driver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await spawnToAnswer(Number(process.argv[2] ?? 10));
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  console.log(`spawn to first answer, median of ${result.rounds}: plain ${ms(result.plainMs)}, sandboxed ${ms(result.sandboxedMs)} (+${ms(result.sandboxedMs - result.plainMs)}); an app's first start ${ms(result.firstSandboxedMs)}`);
}
