// EDGE=caddy: a running app keeps answering through Caddy while Slipway restarts (SIGTERM, as for an upgrade, and
// kill -9), under load: its instance outlives the platform (adopted by the next one), and Caddy holds a request it
// cannot place (Slipway's lookup server and Slipway itself down) until the new platform answers, instead of
// failing it; the new platform's configuration is the one Caddy runs already, so Caddy keeps it (no reload). A
// request sent into a kept-alive connection that Caddy closed for a configuration load is sent again
// once, as browsers do (RFC 9110 §9.2.2).
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, waitFor, zipFolder } from "../helpers/apps.ts";
import { HAS_CADDY, httpsGet, startCaddy, type TestCaddy } from "../helpers/caddy.ts";
import { Client } from "../helpers/client.ts";
import { startPlatform, stopPlatform } from "../helpers/platform-process.ts";
import { TEST_RUNTIME, removeDockerLeftovers, removeLocalLeftovers, runtimeEnv } from "../helpers/runtime.ts";
import { createPostgresDatabase, freePort } from "../helpers/server.ts";

if (!HAS_CADDY) console.warn("test/edge/caddy-restart.test.ts: skipped: `caddy` is not installed (apt-get install caddy)");

const APP = {
  "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
  "server.js": `const started = Math.random(); require("http").createServer((q, s) => s.end("alive " + started)).listen(process.env.PORT);`,
};

describe.skipIf(!HAS_CADDY)("a platform restart behind Caddy", () => {
  const cleanups: (() => unknown)[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-edge-restart-"));
  let caddy: TestCaddy;
  let env: Record<string, string>;
  let base: string;
  let platform: ChildProcess;
  let appUrl: string;
  let ca: string;

  beforeAll(async () => {
    caddy = await startCaddy();
    const database = process.env.TEST_DATABASE === "postgres" ? await createPostgresDatabase() : null;
    if (database) cleanups.push(database.drop);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: base, DEFAULT_REQUESTS_PER_MINUTE: "1000000", ...caddy.env, ...runtimeEnv(), ...(database ? { DATABASE_URL: database.url } : {}) };
    platform = await startPlatform(env, cleanups);
    const owner = new Client(base);
    await owner.signup();
    await owner.post("/api/apps", { slug: "steady" });
    expect((await deploy(owner, "steady", await zipFolder(null, APP))).status).toBe("LIVE");
    ca = await caddy.ca();
    appUrl = `https://steady.localhost:${caddy.ports.https}/`;
    await waitFor(async () => (await httpsGet(appUrl, ca, new https.Agent()).catch(() => null))?.status === 200, 20_000, "the app through Caddy");
  }, 120_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await (TEST_RUNTIME === "local" ? removeLocalLeftovers(dataDir) : removeDockerLeftovers(dataDir));
    await caddy?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(`fails no request to a running app while the platform restarts (${signal})`, async () => {
      const before = (await httpsGet(appUrl, ca, new https.Agent())).body;
      const failures: string[] = [];
      const answers: string[] = [];
      let loading = true;
      const client = async () => {
        const agent = new https.Agent({ keepAlive: true });
        while (loading) {
          const res = await httpsGet(appUrl, ca, agent).catch((error: Error) => ({ status: 0, body: error.message }));
          if (res.status === 200) answers.push(res.body);
          else failures.push(`${res.status} ${res.body.slice(0, 200)}`);
        }
        agent.destroy();
      };
      const load = Promise.all([client(), client(), client()]);
      await waitFor(async () => answers.length > 20, 10_000, "requests answered before the restart");

      const loads = () => caddy.logLines('"uri":"/load"').length;
      const unchanged = () => caddy.logLines("config is unchanged").length;
      const [loadsBefore, unchangedBefore] = [loads(), unchanged()];
      await stopPlatform(platform, signal, base);
      const whileDown = answers.length;
      platform = await startPlatform(env, cleanups);
      // Under load until the new platform gave Caddy its configuration, and on after that.
      await waitFor(async () => loads() > loadsBefore, 20_000, "the new platform's first load");
      const loaded = answers.length;
      await waitFor(async () => answers.length > Math.max(whileDown, loaded) + 50, 20_000, "requests answered after the restart");
      loading = false;
      await load;

      expect(failures).toEqual([]);
      // The same configuration as before the restart (its DNS source on the same port, the CDN token shared): Caddy
      // keeps running what it ran, closing no connection.
      expect(unchanged()).toBe(unchangedBefore + loads() - loadsBefore);
      // One process served throughout: the one that ran before the restart.
      expect(new Set(answers)).toEqual(new Set([before]));
    }, 120_000);
  }
});
