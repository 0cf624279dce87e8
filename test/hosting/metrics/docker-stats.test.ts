// The docker runtime's instance stats, from the Engine API's one-shot answer (a double of dockerode's container; the
// live engine is exercised by the docker suite): CPU time in nanoseconds, memory as `docker stats` shows it (usage
// less the inactive page cache, cgroup v1 or v2 names), the limit unless it is the engine's "none".
import { describe, expect, it } from "vitest";
import type { Docker } from "../../../server/platform/runtime/docker/client.ts";
import { containerStats } from "../../../server/platform/runtime/docker/stats.ts";

const engine = (answer: unknown) => ({ getContainer: () => ({ stats: async () => answer }) }) as unknown as Docker;

describe("docker instance stats", () => {
  it("reads CPU time, memory less the inactive cache, and the limit", async () => {
    const v1 = { cpu_stats: { cpu_usage: { total_usage: 5e9 } }, memory_stats: { usage: 300 << 20, limit: 512 << 20, stats: { total_inactive_file: 100 << 20 } } };
    expect(await containerStats(engine(v1), "c")).toEqual({ cpuNanos: 5e9, memoryBytes: 200 << 20, memoryLimitBytes: 512 << 20 });
    const v2 = { cpu_stats: { cpu_usage: { total_usage: 7 } }, memory_stats: { usage: 50, limit: 2 ** 63, stats: { inactive_file: 20 } } };
    expect(await containerStats(engine(v2), "c")).toEqual({ cpuNanos: 7, memoryBytes: 30, memoryLimitBytes: null });
  });

  it("answers null for a container that is gone", async () => {
    const gone = { getContainer: () => ({ stats: () => Promise.reject(new Error("no such container")) }) } as unknown as Docker;
    expect(await containerStats(gone, "c")).toBeNull();
  });
});
