// Web instances' states: the table, and the health monitor moving a replica along it on the fake clock against a
// real HTTP server that answers or fails as the test says: into rotation on a pass, out after `failures` failed
// checks or at once when the router cannot reach it, stopped once stuck (and never back from there).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HealthMonitor } from "../../../server/hosting/health-monitor.ts";
import type { HealthProbe } from "../../../server/hosting/health-settings.ts";
import { nextWebState, WEB_TRANSITIONS, type WebState } from "../../../server/hosting/processes/instance-states.ts";
import { moveReplica, type Replica } from "../../../server/hosting/replicas.ts";
import type { Instance } from "../../../server/platform/runtime/types.ts";
import { waitFor } from "../../helpers/apps.ts";
import { FakeClock } from "../../helpers/fake-clock.ts";

describe("the web instance state table", () => {
  it("reaches exited from every state, and leaves stopping and exited only by an exit", () => {
    const reachesExited = (state: WebState, seen: Set<WebState>): boolean =>
      state === "exited" || (!seen.has(state) && Object.values(WEB_TRANSITIONS[state]).some((next) => reachesExited(next!, new Set([...seen, state]))));
    for (const state of Object.keys(WEB_TRANSITIONS) as WebState[]) expect(reachesExited(state, new Set()), state).toBe(true);
    expect(WEB_TRANSITIONS.stopping).toEqual({ exited: "exited" });
    expect(WEB_TRANSITIONS.exited).toEqual({});
    expect(nextWebState("starting", "failing")).toBeNull(); // a starting instance is judged by its start's check
    expect(nextWebState("unhealthy", "passed")).toBe("healthy");
  });
});

describe("the health monitor", () => {
  let server: http.Server;
  let answering = true;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.writeHead(answering ? 200 : 500).end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => server.close());

  it("moves a replica in and out of rotation, and stops it once stuck", async () => {
    const clock = new FakeClock(0);
    const { port } = server.address() as AddressInfo;
    const replica: Replica = { index: 1, instance: { target: { host: "127.0.0.1", port } } as Instance, log: null as never, startedAt: 0, state: "starting", failures: 0 };
    const probe: HealthProbe = { path: "/health", intervalMs: 1000, timeoutMs: 1000, source: "app" };
    const changes: string[] = [];
    const stuck: string[] = [];
    const monitor = new HealthMonitor({ failures: 2, restartAfter: 4 }, clock, () => probe, () => [replica], (_r, why) => changes.push(why), (_r, why) => stuck.push(why));
    monitor.start();
    /** One check, once the previous one is over and the next is scheduled. */
    const check = async (until: () => boolean) => {
      await waitFor(async () => clock.pending === 1, 5000, "the next check to be scheduled");
      await clock.advanceTo(clock.now() + probe.intervalMs);
      await waitFor(async () => until(), 5000, "the check's effect");
    };

    await check(() => replica.state === "healthy");
    answering = false;
    await check(() => replica.failures === 1);
    expect(replica.state).toBe("healthy");
    await check(() => replica.state === "unhealthy");
    expect(changes.at(-1)).toMatch(/^failed 2 health checks in a row \(GET \/health.*out of rotation until it passes again$/);
    answering = true;
    await check(() => replica.state === "healthy" && replica.failures === 0);

    monitor.markFailed(replica, "the router could not reach it");
    expect([replica.state, replica.failures, changes.at(-1)]).toEqual(["unhealthy", 2, "the router could not reach it"]);
    answering = false;
    await check(() => replica.failures === 3);
    await check(() => replica.state === "stopping");
    expect(stuck).toEqual(["failed 4 health checks in a row: restarting it"]);
    answering = true;
    const changed = changes.length;
    await check(() => replica.failures === 0);
    expect([replica.state, changes.length]).toEqual(["stopping", changed]);
    expect(moveReplica(replica, "exited")).toBe(true);
    expect(moveReplica(replica, "passed")).toBe(false);
    monitor.stop();
  });
});
