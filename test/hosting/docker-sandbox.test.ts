// An app on the docker runtime driver, probed from inside its container as an attacker would: the platform's files
// and environment, the Docker socket, the host's services at every host address (the app network's gateway, docker0,
// the machine's own), another app's container, link-local and the local driver's range; the forwarded PostgreSQL
// server as the one thing it may reach; the limits. Skipped, with the reason in the name, where no engine answers
// or on another test runtime.
import { createServer, type Server } from "node:http";
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerDriver } from "../../server/platform/runtime/docker/driver.ts";
import { SERVICE_ADDRESS } from "../../server/platform/runtime/docker/network.ts";
import { createDockerClient, platformId } from "../../server/platform/runtime/docker/client.ts";
import type { Instance, RuntimeDriver } from "../../server/platform/runtime/types.ts";
import { TEST_RUNTIME, dockerUnavailable, removeDockerLeftovers } from "../helpers/runtime.ts";
import { LIMITS, collectOutput, lastJson, makeDataDir, makeRelease, waitForHttp } from "./runtime-helpers.ts";

const PROBE = `
const fs = require("fs"), net = require("net");
const targets = JSON.parse(process.env.TARGETS);
const read = (p) => { try { return "READ " + fs.readFileSync(p, "utf8").slice(0, 200); } catch (e) { return e.code; } };
const list = (p) => { try { return "LISTED " + fs.readdirSync(p).join(","); } catch (e) { return e.code; } };
const write = (p) => { try { fs.writeFileSync(p, "x"); return "WROTE"; } catch (e) { return e.code; } };
const connect = (host, port) => new Promise((resolve) => {
  const socket = net.connect({ host, port, timeout: 1500 });
  socket.once("connect", () => { socket.destroy(); resolve("CONNECTED"); });
  socket.once("timeout", () => { socket.destroy(); resolve("TIMEOUT"); });
  socket.once("error", (e) => resolve(e.code));
});
(async () => {
  const status = fs.readFileSync("/proc/self/status", "utf8");
  const field = (name) => new RegExp("^" + name + ":\\\\s+(.*)$", "m").exec(status)[1].trim();
  const secret = [...targets.reversedSecret].reverse().join("");
  const environs = fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p)).map((p) => read("/proc/" + p + "/environ")).join("\\n");
  const result = {
    uid: process.getuid(), capEff: field("CapEff"), capBnd: field("CapBnd"), noNewPrivs: field("NoNewPrivs"),
    env: Object.keys(process.env).sort(),
    environsMentionSecret: environs.includes(secret),
    reads: Object.fromEntries(targets.reads.map((p) => [p, read(p)])),
    lists: Object.fromEntries(targets.lists.map((p) => [p, list(p)])),
    writes: Object.fromEntries(targets.writes.map((p) => [p, write(p)])),
    connects: {},
  };
  // The host on the app's own network: the default gateway, from the routing table.
  const hex = fs.readFileSync("/proc/net/route", "utf8").split("\\n").map((l) => l.split("\\t")).find((f) => f[1] === "00000000")[2];
  const gateway = [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join(".");
  for (const port of targets.gatewayPorts) targets.connects.push([gateway, port]);
  await Promise.all(targets.connects.map(async ([host, port]) => { result.connects[host + ":" + port] = await connect(host, port); }));
  console.log(JSON.stringify(result));
})();
`;

const VICTIM = `require("http").createServer((req, res) => res.end("victim")).listen(process.env.PORT, process.env.HOST);`;
const ECHO = `process.on("SIGTERM", () => process.exit(0)); require("http").createServer((req, res) => { console.log("request " + req.url); res.end(process.env.GREETING); }).listen(process.env.PORT, process.env.HOST);`;
const PLATFORM_SECRET = "platform-secret-0c41d7";

interface ProbeResult {
  uid: number;
  capEff: string;
  capBnd: string;
  noNewPrivs: string;
  env: string[];
  environsMentionSecret: boolean;
  reads: Record<string, string>;
  lists: Record<string, string>;
  writes: Record<string, string>;
  connects: Record<string, string>;
}

// Run by npm run test:docker (once in CI, not again within npm test).
const unavailable = TEST_RUNTIME !== "docker" ? "runs with SLIPWAY_TEST_RUNTIME=docker (npm run test:docker)" : await dockerUnavailable();
if (unavailable) console.warn(`docker runtime tests SKIPPED: ${unavailable}`);

describe.skipIf(unavailable)(`docker runtime sandbox, probed from inside a container${unavailable ? ` (SKIPPED: ${unavailable})` : ""}`, () => {
  let dataDir: string;
  let driver: RuntimeDriver;
  let platform: Server;
  let platformPort: number;
  let victim: Instance;
  let attackerRelease: string;
  let probe: ProbeResult;

  beforeAll(async () => {
    process.env.SLIPWAY_TEST_PLATFORM_SECRET = PLATFORM_SECRET;
    dataDir = makeDataDir();
    writeFileSync(path.join(dataDir, "slipway.db"), "the platform's database", { mode: 0o644 });
    platform = createServer((req, res) => res.end("platform"));
    await new Promise<void>((resolve) => platform.listen(0, "0.0.0.0", resolve));
    platformPort = (platform.address() as { port: number }).port;
    driver = await createDockerDriver({ dataDir, allowPartial: false, forward: { host: "127.0.0.1", port: 5432 }, graceMs: 1000 });
    victim = await driver.start({
      appKey: "victim",
      instanceId: "victim-1",
      workDir: makeRelease(dataDir, "victim", { "server.js": VICTIM }),
      argv: ["node", "server.js"],
      env: {},
      limits: LIMITS,
      onOutput: () => {},
      release: { slug: "victim", deploymentId: "d1" },
    });
    expect(await waitForHttp(`http://${victim.target.host}:${victim.target.port}/`)).toBe("victim");

    attackerRelease = makeRelease(dataDir, "attacker", { "probe.js": PROBE });
    const hostAddresses = Object.values(os.networkInterfaces()).flat().filter((a) => a && a.family === "IPv4" && !a.internal).map((a) => a!.address);
    const attackerGateway = victim.target.host.replace(/\.\d+$/, ".1"); // the host, on the victim's network
    const targets = {
      reversedSecret: [...PLATFORM_SECRET].reverse().join(""),
      reads: [path.join(dataDir, "slipway.db"), "/var/run/docker.sock", "/run/docker.sock", "/etc/shadow", path.join(process.cwd(), "package.json")],
      lists: [dataDir, "/work", "/root", "/var/run", "/run"],
      writes: ["/usr/lib/x", "/etc/x", "/x", "/data/x", "/app/written", "/tmp/written"],
      gatewayPorts: [platformPort, 5432, 6379, 22, 2375],
      connects: [
        ["172.17.0.1", platformPort],
        ...hostAddresses.flatMap((address) => [[address, platformPort], [address, 5432], [address, 6379], [address, 22]]),
        [attackerGateway, platformPort],
        [attackerGateway, 5432],
        ["127.0.0.1", platformPort],
        [victim.target.host, victim.target.port],
        ["10.201.250.2", 8000],
        ["169.254.169.254", 80],
        [SERVICE_ADDRESS, 6379],
        [SERVICE_ADDRESS, 5432],
        ["registry.npmjs.org", 443],
      ],
    };
    const output = collectOutput();
    const result = await driver.run({ appKey: "attacker", workDir: attackerRelease, argv: ["node", "probe.js"], env: { TARGETS: JSON.stringify(targets) }, limits: LIMITS, onOutput: output.sink, timeoutMs: 30_000 });
    expect(result, output.text()).toMatchObject({ code: 0, timedOut: false });
    probe = lastJson<ProbeResult>(output);
  }, 120_000);

  afterAll(async () => {
    delete process.env.SLIPWAY_TEST_PLATFORM_SECRET;
    await driver?.close();
    await new Promise((resolve) => platform?.close(resolve));
    if (dataDir) await removeDockerLeftovers(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs as the app user, with no capabilities and no new privileges", () => {
    expect(probe.uid).toBe(10001);
    expect([probe.capEff, probe.capBnd]).toEqual(["0000000000000000", "0000000000000000"]);
    expect(probe.noNewPrivs).toBe("1");
  });

  it("shows the app only its own variables, never the platform's", () => {
    expect(probe.env).toEqual(["HOME", "HOSTNAME", "HOST", "PATH", "TARGETS"].sort());
    expect(probe.environsMentionSecret).toBe(false);
  });

  it("hides the platform's files, the Docker socket and the host", () => {
    for (const [file, outcome] of Object.entries(probe.reads)) expect(outcome, file).toMatch(/^(ENOENT|EACCES)$/);
    for (const [dir, outcome] of Object.entries(probe.lists)) expect(outcome, dir).not.toMatch(/docker\.sock|slipway\.db|LISTED .*(shadow|bashrc)/);
    expect(probe.lists[dataDir]).toBe("ENOENT");
  });

  it("lets a build write only to its release (/app) and /tmp", () => {
    const { "/app/written": app, "/tmp/written": tmp, ...others } = probe.writes;
    expect([app, tmp]).toEqual(["WROTE", "WROTE"]);
    for (const [file, outcome] of Object.entries(others)) expect(outcome, file).toMatch(/^(EROFS|ENOENT|EACCES)$/);
  });

  it("lets the app reach no service of the host, no other app and no link-local address; only its database server", () => {
    const { [`${SERVICE_ADDRESS}:5432`]: database, "registry.npmjs.org:443": outside, ...inside } = probe.connects;
    for (const [target, outcome] of Object.entries(inside)) expect(outcome, target).not.toBe("CONNECTED");
    expect(Object.keys(inside).length).toBeGreaterThanOrEqual(15);
    if (process.env.SLIPWAY_TEST_VERBOSE) console.log(probe.connects);
    expect(database, "the forwarded PostgreSQL server").toBe("CONNECTED");
    expect(outside, "the outside network through the engine's NAT").toBe("CONNECTED");
  });

  it("runs an instance on a read-only root, with /tmp and /data writable, and no link of its release reaching the host", async () => {
    const output = collectOutput();
    const check = `const fs = require("fs"); const w = (p) => { try { fs.writeFileSync(p, "x"); return "WROTE"; } catch (e) { return e.code; } };
      const r = (p) => { try { return fs.readFileSync(p, "utf8"); } catch (e) { return e.code; } };
      const l = (p) => { try { return fs.readlinkSync(p) + ": " + r(p); } catch (e) { return e.code; } };
      console.log(JSON.stringify({ app: w("/app/x"), tmp: w("/tmp/x"), data: w("/data/x"), inside: r("/app/inside"), outside: l("/app/outside"), absolute: l("/app/absolute") }));
      setInterval(() => {}, 1000);`;
    const release = makeRelease(dataDir, "linked", { "probe.js": PROBE });
    symlinkSync("probe.js", path.join(release, "inside"));
    symlinkSync("../../../slipway.db", path.join(release, "outside"));
    symlinkSync(path.join(dataDir, "slipway.db"), path.join(release, "absolute"));
    const instance = await driver.start({
      appKey: "attacker",
      instanceId: "attacker-web",
      workDir: release,
      dataDir: path.join(dataDir, "apps", "attacker", "data"),
      argv: ["node", "-e", check],
      env: {},
      limits: LIMITS,
      onOutput: output.sink,
      release: { slug: "attacker", deploymentId: "d1" },
    });
    for (let i = 0; i < 100 && !output.text().includes("}"); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    await instance.stop(500);
    // Links stay links in the image (a virtualenv's python → /usr/bin/python3.11): they resolve in the container,
    // where the platform's files do not exist.
    const host = path.join(dataDir, "slipway.db");
    expect(lastJson(output)).toEqual({ app: "EROFS", tmp: "WROTE", data: "WROTE", inside: PROBE, outside: "../../../slipway.db: ENOENT", absolute: `${host}: ENOENT` });
  });

  it("leaves nothing of an app once removed, and a restarted platform reaps what the last one left", async () => {
    const docker = createDockerClient();
    const filters = (app: string) => JSON.stringify({ label: [`slipway.platform=${platformId(dataDir)}`, `slipway.app=${app}`] });
    const left = async (app: string) => [
      ...(await docker.listContainers({ all: true, filters: filters(app) })).map((c) => `container ${c.Names[0]}`),
      ...(await docker.listNetworks({ filters: filters(app) })).map((n) => `network ${n.Name}`),
      ...(await docker.listImages({ filters: filters(app) })).map((i) => `image ${i.RepoTags?.[0]}`),
    ];
    expect(await left("victim")).toEqual(expect.arrayContaining([expect.stringMatching(/^container/), "network slipway-victim", "image slipway/victim:d1"]));
    await driver.removeApp("victim");
    expect(await left("victim")).toEqual([]);

    // A platform killed while an app ran: the next one with the same DATA_DIR removes its containers and networks.
    const orphan = await driver.start({ appKey: "orphan", instanceId: "orphan-1", workDir: makeRelease(dataDir, "orphan", { "server.js": VICTIM }), argv: ["node", "server.js"], env: {}, limits: LIMITS, onOutput: () => {} });
    expect(await waitForHttp(`http://${orphan.target.host}:${orphan.target.port}/`)).toBe("victim");
    const next = await createDockerDriver({ dataDir, allowPartial: false });
    await next.reap();
    expect((await left("orphan")).filter((l) => !l.startsWith("image"))).toEqual([]);
    await orphan.exited;
  });

  it("lets a restarted platform adopt a web container that runs what it would start, once, and spares it from reap()", async () => {
    const workDir = makeRelease(dataDir, "kept", { "server.js": ECHO });
    const spec = { appKey: "kept", instanceId: "kept-1", index: 1, workDir, argv: ["node", "server.js"], env: { GREETING: "hi" }, limits: LIMITS, release: { slug: "kept", deploymentId: "d1" } };
    const first = await driver.start({ ...spec, onOutput: () => {} });
    await waitForHttp(`http://${first.target.host}:${first.target.port}/`);
    const next = await createDockerDriver({ dataDir, allowPartial: false });
    const output = collectOutput();
    const adopt = (changes: object) => next.adopt!({ ...spec, instanceId: "unused", onOutput: output.sink, ...changes });
    // Another env, release, index or limit: not what a start would run now.
    expect(await adopt({ env: { GREETING: "hello" } })).toBeNull();
    expect(await adopt({ release: { slug: "kept", deploymentId: "d2" } })).toBeNull();
    expect(await adopt({ index: 2 })).toBeNull();
    expect(await adopt({ limits: { ...LIMITS, pids: LIMITS.pids + 1 } })).toBeNull();
    const adopted = await adopt({});
    expect(adopted).toMatchObject({ instanceId: "kept-1", target: first.target, pid: first.pid });
    expect(await adopt({})).toBeNull(); // taken already
    expect(next.list()).toEqual([adopted]);
    await next.reap();
    // Its output from now on reaches the new sink.
    expect(await waitForHttp(`http://${first.target.host}:${first.target.port}/late`)).toBe("hi");
    await expect.poll(() => output.text("stdout")).toContain("request /late");
    await adopted!.stop(1000);
    expect(await adopted!.exited).toMatchObject({ code: 0 });
    await next.close();
  });

  it("keeps a fork bomb under the pids limit", async () => {
    const output = collectOutput();
    const bomb = `
      const { spawn } = require("child_process");
      let started = 0, refused = 0;
      for (let i = 0; i < 200; i++) {
        const child = spawn("/usr/bin/sleep", ["30"]);
        child.on("spawn", () => started++);
        child.on("error", () => refused++);
      }
      setTimeout(() => { console.log(JSON.stringify({ started, refused })); process.exit(0); }, 1500);
    `;
    const result = await driver.run({ appKey: "attacker", workDir: attackerRelease, argv: ["node", "-e", bomb], env: {}, limits: { ...LIMITS, pids: 40 }, onOutput: output.sink, timeoutMs: 15_000 });
    expect(result.code, output.text()).toBe(0);
    const { started, refused } = lastJson<{ started: number; refused: number }>(output);
    expect(started).toBeLessThan(40);
    expect(refused).toBeGreaterThan(100);
  });

  it("OOM-kills an app past its memory limit", async () => {
    const hog = `const kept = []; for (let i = 0; i < 100; i++) { kept.push(Buffer.alloc(16 * 1024 * 1024, 1)); } console.log("survived");`;
    const output = collectOutput();
    const result = await driver.run({ appKey: "attacker", workDir: attackerRelease, argv: ["node", "-e", hog], env: {}, limits: { ...LIMITS, memoryBytes: 128 * 1024 * 1024 }, onOutput: output.sink, timeoutMs: 15_000 });
    expect(output.text()).not.toContain("survived");
    expect(result).toMatchObject({ signal: "SIGKILL", oomKilled: true, timedOut: false });
  });

  it("holds the app to its CPU share", async () => {
    const busy = `const start = Date.now(); while (Date.now() - start < 1000); const { user, system } = process.cpuUsage(); console.log(JSON.stringify({ cpuMs: (user + system) / 1000 }));`;
    const output = collectOutput();
    await driver.run({ appKey: "attacker", workDir: attackerRelease, argv: ["node", "-e", busy], env: {}, limits: { ...LIMITS, cpuPercent: 20 }, onOutput: output.sink, timeoutMs: 15_000 });
    expect(lastJson<{ cpuMs: number }>(output).cpuMs).toBeLessThan(600);
  });
});
