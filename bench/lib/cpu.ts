// CPU time spent by servers (and their child processes, like nginx's worker): user + system seconds from
// /proc/<pid>/stat. On a shared machine throughput swings with the neighbours' load; the CPU a server spends
// per byte it sends does much less, so the CDN suite reports both.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

const TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

function tree(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const list = fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (list) children.push(...list.split(/\s+/).map(Number));
    }
  } catch {
    return [];
  }
  return [pid, ...children.flatMap(tree)];
}

function ticks(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by these processes and their descendants. */
export function cpuSeconds(pids: number[]): number {
  return pids.flatMap(tree).reduce((sum, pid) => sum + ticks(pid), 0) / TICKS;
}
