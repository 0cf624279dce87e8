// `slipway metrics` as a child process against a real server: the latest value and a sparkline of each series, from
// minute rows written straight to the database (the sampling itself is test/hosting/metrics's), and a bad --since.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { cliHome, login, runCli, type CliHome } from "./helpers.ts";

let server: TestServer;
let user: Client;
let home: CliHome;
const slug = `cli-metrics-${process.pid}`;
const MINUTE = 60_000;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  user = new Client(server.url);
  await user.signup();
  home = cliHome();
  await login(home, server.url, user);
  expect((await user.post("/api/apps", { slug })).status).toBe(201);
  const { db } = server.slipway.platform;
  const app = await db.app.findUniqueOrThrow({ where: { slug } });
  const now = Date.now() - (Date.now() % MINUTE);
  // The last five complete minutes: CPU climbing to half a core, 128 MiB of 512, requests with some 5xx.
  for (let i = 1; i <= 5; i++) {
    const minute = new Date(now - (6 - i) * MINUTE);
    await db.appUsageMinute.create({ data: { appId: app.id, minute, process: "web", cpu: i / 10, memory: 128 * 2 ** 20, memoryLimit: 512 * 2 ** 20, restarts: 0 } });
    await db.appRequestMinute.create({ data: { appId: app.id, minute, source: "test", requests: 10 * i, errors: i === 5 ? 2 : 0, latency: JSON.stringify({ 40: 10 * i }) } });
  }
}, 60_000);
afterAll(async () => {
  await server?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

describe("slipway metrics", () => {
  it("prints each series' latest value and a sparkline", async () => {
    const result = await runCli(home, ["metrics", "--app", slug]);
    expect(result.code, result.stderr).toBe(0);
    const line = (name: string) => result.stdout.split("\n").find((l) => l.startsWith(name))!;
    expect(line("CPU")).toContain("0.50 cores");
    expect(line("CPU")).toMatch(/▂▄▅▇█ *$/);
    expect(line("Memory")).toContain("128.0 MB of 512.0 MB");
    expect(line("Requests")).toContain("50 / 1 min");
    expect(line("Errors (5xx)")).toContain("2 / 1 min");
    expect(line("Latency p50")).toMatch(/\d+(\.\d)? ms/);
    const json = JSON.parse((await runCli(home, ["metrics", "--app", slug, "--since", "30m", "--json"])).stdout);
    expect(json.step).toBe(60);
    expect(json.series.requests.filter(([, v]: [string, number | null]) => (v ?? 0) > 0)).toHaveLength(5);
  });

  it("refuses a --since that is not a duration", async () => {
    const result = await runCli(home, ["metrics", "--app", slug, "--since", "yesterday"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--since takes a duration such as 30m, 1h or 7d");
  });
});
