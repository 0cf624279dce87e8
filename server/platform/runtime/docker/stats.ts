// A container's resource use through the Engine API (GET /containers/{id}/stats?stream=false&one-shot=true): one
// answer without the engine's own one-second wait for a CPU delta (the sampler takes the rate between its samples).
import type { InstanceStats } from "../types.ts";
import type { Docker } from "./client.ts";

export async function containerStats(docker: Docker, id: string): Promise<InstanceStats | null> {
  const stats = await docker
    .getContainer(id)
    .stats({ stream: false, "one-shot": true })
    .catch(() => null);
  if (!stats) return null;
  const memory = stats.memory_stats;
  // What `docker stats` shows: usage less the inactive page cache (cgroup v1 and v2 name it differently).
  const cache = memory.stats?.total_inactive_file ?? memory.stats?.inactive_file ?? 0;
  return {
    cpuNanos: stats.cpu_stats?.cpu_usage?.total_usage ?? null,
    memoryBytes: memory.usage === undefined ? null : Math.max(0, memory.usage - cache),
    memoryLimitBytes: memory.limit && memory.limit < 2 ** 62 ? memory.limit : null,
  };
}
