// What the leader runs (LeaderWork): parts start in order; a start that threw (a boot at a failover that could not
// reach the runtime) is tried again through the caller's timer, starting only the parts not running yet; following
// stops the running ones.
import { describe, expect, it } from "vitest";
import { LeaderWork, type LeaderPart } from "../../server/platform/cluster/index.ts";

function part(name: string, log: string[], failures = 0): LeaderPart {
  let left = failures;
  return {
    start() {
      if (left-- > 0) throw new Error(`${name} could not start`);
      log.push(`start ${name}`);
    },
    async stop() {
      log.push(`stop ${name}`);
    },
  };
}

describe("the leader's work", () => {
  it("tries a failed start again, starting only what does not run yet, and stops what runs when following", async () => {
    const log: string[] = [];
    const errors: string[] = [];
    const retries: Array<() => void> = [];
    const work = new LeaderWork([part("engine", log), part("cron", log, 1), part("backups", log)], (error) => errors.push((error as Error).message), (again) => retries.push(again));

    work.lead();
    await expect(work.settled()).rejects.toThrow("cron could not start");
    expect(log).toEqual(["start engine"]);
    expect(errors).toEqual(["cron could not start"]);
    expect(retries).toHaveLength(1);

    retries[0]();
    await work.settled();
    expect(log).toEqual(["start engine", "start cron", "start backups"]);
    expect(retries).toHaveLength(1);

    work.follow();
    await work.settled();
    expect(log.slice(3).sort()).toEqual(["stop backups", "stop cron", "stop engine"]);
  });

  it("calls for no retry when the start succeeded", async () => {
    const retries: Array<() => void> = [];
    const work = new LeaderWork([part("engine", [])], () => {}, (again) => retries.push(again));
    work.lead();
    await work.settled();
    expect(retries).toEqual([]);
  });
});
