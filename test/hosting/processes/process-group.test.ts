// Process types beside web (worker.1 … worker.N) on the null runtime and a fake clock: the state table, starts,
// crash restarts with back-off (reset after a healthy period), scaling both ways, stops while starting, and a
// release replacing another. Nothing here waits on real time.
import { describe, expect, it } from "vitest";
import { nextState, TRANSITIONS, type InstanceState } from "../../../server/hosting/processes/instance-states.ts";
import { ProcessGroup } from "../../../server/hosting/processes/process-group.ts";
import { AppWorkers, quantityOf } from "../../../server/hosting/processes/workers.ts";
import type { Release } from "../../../server/hosting/supervisor.ts";
import { FakeClock } from "../../helpers/fake-clock.ts";
import { NullRuntime } from "../../helpers/null-runtime.ts";

const BACKOFF = { baseMs: 1000, maxMs: 8000, healthyAfterMs: 30_000 };
/** Lets the promise callbacks a timer or an exit began run to their end. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function groupOn(runtime: NullRuntime, clock: FakeClock, quantity = 1) {
  const lines: string[] = [];
  const group = new ProcessGroup(
    {
      spawn: (index) => runtime.start({ appKey: "app", instanceId: "", index, process: "worker", workDir: "/app", argv: ["/bin/sh", "-c", "work"], env: {}, limits: { memoryBytes: 1, cpuPercent: 1, pids: 1 }, onOutput: () => {} }),
      clock,
      backoff: BACKOFF,
      stopGraceMs: 5000,
      log: (line) => lines.push(line),
      changed: () => {},
    },
    "worker",
    quantity,
  );
  return { group, lines };
}

const states = (group: ProcessGroup) => group.status().map((s) => `${s.name}:${s.state}`);

describe("the instance state table", () => {
  it("leads every state somewhere only through the events it lists, and stopped nowhere", () => {
    expect(nextState("starting", "spawned")).toBe("running");
    expect(nextState("running", "exited")).toBe("crashed");
    expect(nextState("crashed", "retry")).toBe("starting");
    expect(nextState("running", "stop")).toBe("stopping");
    expect(nextState("stopping", "exited")).toBe("stopped");
    expect(nextState("crashed", "stop")).toBe("stopped");
    expect(nextState("stopping", "spawned")).toBeNull();
    expect(Object.keys(TRANSITIONS.stopped)).toEqual([]);
    // Every state can reach stopped: nothing runs on after a stop.
    const reachesStopped = (state: InstanceState, seen = new Set<InstanceState>()): boolean =>
      state === "stopped" || (!seen.has(state) && Object.values(TRANSITIONS[state]).some((next) => reachesStopped(next!, new Set([...seen, state]))));
    for (const state of Object.keys(TRANSITIONS) as InstanceState[]) expect(reachesStopped(state), state).toBe(true);
  });
});

describe("a process group", () => {
  it("starts its quantity of instances, each named and without PORT", async () => {
    const runtime = new NullRuntime();
    const { group } = groupOn(runtime, new FakeClock(0), 2);
    await group.start();
    expect(states(group)).toEqual(["worker.1:running", "worker.2:running"]);
    expect(runtime.started.map((i) => [i.spec.index, i.spec.process])).toEqual([
      [1, "worker"],
      [2, "worker"],
    ]);
  });

  it("restarts a crashed instance after a back-off that doubles, and forgets it after a healthy period", async () => {
    const runtime = new NullRuntime();
    const clock = new FakeClock(0);
    const { group, lines } = groupOn(runtime, clock);
    await group.start();
    for (let i = 0; i < 5; i++) {
      runtime.crash(1, { code: 3 });
      await settle();
      expect(states(group)).toEqual(["worker.1:crashed"]);
      // Just before its delay nothing has started; at it, it has.
      const delay = Math.min(1000 * 2 ** i, BACKOFF.maxMs);
      await clock.advanceTo(clock.now() + delay - 1, settle);
      expect(states(group)).toEqual(["worker.1:crashed"]);
      await clock.advanceTo(clock.now() + 1, settle);
      expect(states(group)).toEqual(["worker.1:running"]);
    }
    expect(lines.map((l) => /Restarting in ([\d.]+ m?s)/.exec(l)?.[1])).toEqual(["1 s", "2 s", "4 s", "8 s", "8 s"]);
    expect(lines[0]).toBe("Crashed: worker.1: the process exited (exit code 3). Restarting in 1 s (failure 1 in a row).");
    expect(group.status()[0].restarts).toBe(5);
    // Up for the healthy period: the count is forgotten, and the next crash waits the base delay again.
    await clock.advanceTo(clock.now() + BACKOFF.healthyAfterMs, settle);
    expect(group.status()[0].restarts).toBe(0);
    runtime.crash(1);
    await settle();
    expect(lines.at(-1)).toContain("Restarting in 1 s (failure 1 in a row)");
  });

  it("counts a start that fails after a long run as the next failure in a row, not the first", async () => {
    const runtime = new NullRuntime();
    const clock = new FakeClock(0);
    const { group, lines } = groupOn(runtime, clock);
    await group.start();
    await clock.advanceTo(BACKOFF.healthyAfterMs, settle);
    runtime.crash(1);
    await settle();
    runtime.failNextStart();
    await clock.advanceTo(clock.now() + 1000, settle);
    expect(lines.map((l) => /failure (\d+)/.exec(l)?.[1])).toEqual(["1", "2"]);
  });

  it("retries a start the runtime refused, like a crash", async () => {
    const runtime = new NullRuntime();
    const clock = new FakeClock(0);
    const { group, lines } = groupOn(runtime, clock);
    runtime.failNextStart();
    await group.start();
    expect(states(group)).toEqual(["worker.1:crashed"]);
    expect(lines).toEqual(["Crashed: worker.1: it did not start: the sandbox could not be set up. Restarting in 1 s (failure 1 in a row)."]);
    await clock.advanceTo(1000, settle);
    expect(states(group)).toEqual(["worker.1:running"]);
  });

  it("scales up and down, stopping the highest instances gracefully and cancelling a pending restart", async () => {
    const runtime = new NullRuntime();
    const clock = new FakeClock(0);
    const { group } = groupOn(runtime, clock, 1);
    await group.start();
    await group.scale(3);
    expect(states(group)).toEqual(["worker.1:running", "worker.2:running", "worker.3:running"]);
    runtime.crash(3);
    await settle();
    await group.scale(1);
    expect(states(group)).toEqual(["worker.1:running"]);
    expect(runtime.started.filter((i) => i.stopped).map((i) => i.spec.index)).toEqual([2]);
    // worker.3's restart was cancelled: time passing starts nothing.
    await clock.advanceTo(120_000, settle);
    expect(clock.pending).toBe(0);
    expect(runtime.running().map((i) => i.spec.index)).toEqual([1]);
    await group.scale(0);
    expect(group.status()).toEqual([]);
    expect(runtime.running()).toEqual([]);
  });

  it("stops an instance that was still being started once it is", async () => {
    const runtime = new NullRuntime();
    const { group } = groupOn(runtime, new FakeClock(0));
    const starting = group.start();
    const stopping = group.stop();
    await Promise.all([starting, stopping]);
    expect(runtime.started).toHaveLength(1);
    expect(runtime.started[0].done).toBe(true);
    expect(group.status()).toEqual([]);
  });
});

describe("an app's process types", () => {
  it("take their quantity from the formation's own entries only: a type may be named constructor", () => {
    expect(quantityOf({}, "constructor")).toBe(1);
    expect(quantityOf(null, "worker")).toBe(1);
    expect(quantityOf(JSON.parse('{"constructor": 0, "worker": 3}'), "constructor")).toBe(0);
    expect(quantityOf({ worker: 3 }, "worker")).toBe(3);
  });

  const release = (id: string, processes: Record<string, string[]>): Release => ({ deploymentId: id, dir: `/releases/${id}`, web: { kind: "process", argv: ["web"] }, processes });

  it("start a new release's types as the formation says, then stop the previous release's", async () => {
    const runtime = new NullRuntime();
    const clock = new FakeClock(0);
    const spawned: string[] = [];
    const workers = new AppWorkers({
      spawn: (r, type, index) => {
        spawned.push(`${r.deploymentId}:${type}.${index}`);
        return runtime.start({ appKey: "app", instanceId: "", index, process: type, workDir: r.dir, argv: r.processes![type], env: {}, limits: { memoryBytes: 1, cpuPercent: 1, pids: 1 }, onOutput: () => {} });
      },
      adopt: async () => null,
      clock,
      backoff: BACKOFF,
      stopGraceMs: 5000,
      log: () => {},
      changed: () => {},
    });
    await workers.roll(release("d1", { worker: ["/bin/sh", "-c", "node worker.js"], clock: ["/bin/sh", "-c", "node clock.js"] }), { worker: 2 });
    expect(spawned).toEqual(["d1:worker.1", "d1:worker.2", "d1:clock.1"]);
    expect(workers.status().map((p) => [p.type, p.command, p.quantity, p.instances.length])).toEqual([
      ["worker", "node worker.js", 2, 2],
      ["clock", "node clock.js", 1, 1],
    ]);
    const first = [...runtime.started];
    await workers.roll(release("d2", { worker: ["/bin/sh", "-c", "node worker.js"] }), { worker: 1, clock: 0 });
    expect(spawned.slice(3)).toEqual(["d2:worker.1"]);
    expect(first.every((i) => i.stopped)).toBe(true);
    expect(workers.types).toEqual(["worker"]);
    // The new ones were running before the old ones were asked to stop.
    expect(runtime.running().map((i) => i.spec.workDir)).toEqual(["/releases/d2"]);
    await workers.stop();
    expect(runtime.running()).toEqual([]);
  });

  it("take over what an earlier platform left running, start the rest, and leave it running again at a kept shutdown", async () => {
    const runtime = new NullRuntime();
    const clock = new FakeClock(0);
    const spec = (r: Release, type: string, index: number) => ({ appKey: "app", instanceId: "", index, process: type, workDir: r.dir, argv: r.processes![type], env: {}, limits: { memoryBytes: 1, cpuPercent: 1, pids: 1 }, onOutput: () => {} });
    // worker.1 outlived the previous platform; worker.2 did not.
    const d1 = release("d1", { worker: ["/bin/sh", "-c", "node worker.js"] });
    const leftRunning = await runtime.start(spec(d1, "worker", 1));
    const lines: string[] = [];
    const workers = new AppWorkers({
      spawn: (r, type, index) => runtime.start(spec(r, type, index)),
      adopt: async (_r, type, index) => (type === "worker" && index === 1 ? leftRunning : null),
      clock,
      backoff: BACKOFF,
      stopGraceMs: 5000,
      log: (line) => lines.push(line),
      changed: () => {},
    });
    expect(await workers.adopt(d1, { worker: 2 })).toBe(true);
    expect(lines).toEqual(["The platform restarted: worker.1 kept running."]);
    expect(runtime.started).toHaveLength(1);
    await workers.resume();
    expect(runtime.running().map((i) => i.spec.index)).toEqual([1, 2]);
    expect(workers.status()[0].instances.map((i) => [i.name, i.state, i.instanceId])).toEqual([
      ["worker.1", "running", leftRunning.instanceId],
      ["worker.2", "running", runtime.started[1].instanceId],
    ]);
    // An adopted instance that crashes restarts like any other.
    runtime.crash(1);
    await settle();
    await clock.advanceTo(1000);
    await settle();
    expect(runtime.running().map((i) => i.spec.index).sort()).toEqual([1, 2]);
    expect(runtime.started).toHaveLength(3);
    // A kept shutdown stops nothing and follows nothing: a crash then is the next platform's to see.
    await workers.close(true);
    expect(runtime.running()).toHaveLength(2);
    expect(workers.status()).toEqual([]);
    runtime.crash(2);
    await settle();
    await clock.advanceTo(60_000);
    expect(runtime.started).toHaveLength(3);
  });
});
