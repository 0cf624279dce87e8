// The health check Swarm runs in each task (`node -e`, no Docker needed to try it): GET of the path passing on 2xx or
// 3xx, a TCP connect without a path, and the spec carrying it.
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healthProbe, serviceSpec, type ServiceInput } from "../../server/platform/runtime/swarm/spec.ts";

let server: http.Server;
let port: string;
beforeAll(async () => {
  server = http.createServer((q, s) => {
    s.statusCode = q.url === "/ok" && q.headers["user-agent"] === "slipway-health-check" ? 204 : q.url === "/moved" ? 302 : 500;
    s.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = String((server.address() as AddressInfo).port);
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const exitOf = (script: string, env: Record<string, string>) =>
  new Promise<number | null>((resolve) => spawn(process.execPath, ["-e", script], { env, stdio: "ignore" }).on("exit", resolve));

describe("the swarm task's health probe", () => {
  it("passes on 2xx or 3xx of its path, fails on 500 or a refused connection; without a path, a TCP connect", async () => {
    expect(await exitOf(healthProbe("/ok"), { PORT: port })).toBe(0);
    expect(await exitOf(healthProbe("/moved"), { PORT: port })).toBe(0);
    expect(await exitOf(healthProbe("/"), { PORT: port })).toBe(1);
    expect(await exitOf(healthProbe(null), { PORT: port })).toBe(0);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const free = String((closed.address() as AddressInfo).port);
    await new Promise((resolve) => closed.close(resolve));
    expect(await exitOf(healthProbe(null), { PORT: free })).toBe(1);
    expect(await exitOf(healthProbe("/ok"), { PORT: free })).toBe(1);
  });

  it("is the task's HealthCheck, except in an image built from the user's Dockerfile", () => {
    const full: ServiceInput = {
      platformId: "p", appKey: "a", slug: "s", deploymentId: "d", image: "i", argv: [], healthPath: "/ready", env: {}, replicas: 1,
      limits: { memoryBytes: 1, cpuPercent: 100, pids: 10 }, networkId: "n", forceUpdate: 0, stopGraceMs: 1, startTimeoutMs: 1, restart: { delayMs: 1, windowMs: 1 },
    };
    expect(serviceSpec(full).TaskTemplate.ContainerSpec.Healthcheck.Test).toEqual(["CMD", "/usr/bin/node", "-e", healthProbe("/ready")]);
    expect(serviceSpec({ ...full, userImage: true }).TaskTemplate.ContainerSpec.Healthcheck.Test).toEqual(["NONE"]);
  });
});
