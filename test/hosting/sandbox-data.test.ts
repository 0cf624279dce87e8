// What app databases open in the local runtime's sandbox, probed from inside an app: its own data directory
// read-write at /data (and no other app's), and, with a forwarded PostgreSQL server, that server's port at the
// service address, and nothing else of the host. Real processes, namespaces and firewall: needs root.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalDriver } from "../../server/platform/runtime/local/driver.ts";
import { SERVICE_ADDRESS, serviceRules } from "../../server/platform/runtime/local/network.ts";
import type { RuntimeDriver } from "../../server/platform/runtime/types.ts";
import { LIMITS, collectOutput, isRoot, lastJson, makeDataDir, makeRelease } from "./runtime-helpers.ts";

const PROBE = `
const fs = require("fs"), net = require("net");
const targets = JSON.parse(process.env.TARGETS);
const read = (p) => { try { return "READ " + fs.readFileSync(p, "utf8").slice(0, 100); } catch (e) { return e.code; } };
const write = (p) => { try { fs.appendFileSync(p, "x"); return "WROTE"; } catch (e) { return e.code; } };
const connect = (host, port, localAddress) => new Promise((resolve) => {
  const socket = net.connect({ host, port, localAddress, timeout: 1500 });
  socket.once("connect", () => { socket.destroy(); resolve("CONNECTED"); });
  socket.once("timeout", () => { socket.destroy(); resolve("TIMEOUT"); });
  socket.once("error", (e) => resolve(e.code));
});
(async () => {
  const result = {
    dataListing: fs.readdirSync("/data"),
    reads: Object.fromEntries(targets.reads.map((p) => [p, read(p)])),
    writes: Object.fromEntries(targets.writes.map((p) => [p, write(p)])),
    connects: {},
  };
  await Promise.all(targets.connects.map(async ([host, port]) => { result.connects[host + ":" + port] = await connect(host, port); }));
  // From 127.0.0.1, a server trusting loopback connections (pg_hba "trust") would take the app for the host.
  result.fromLoopback = await connect(targets.connects[0][0], targets.connects[0][1], "127.0.0.1");
  console.log(JSON.stringify(result));
})();
`;

interface Probe {
  dataListing: string[];
  reads: Record<string, string>;
  writes: Record<string, string>;
  connects: Record<string, string>;
  fromLoopback: string;
}

describe.runIf(isRoot)("local runtime sandbox with app databases", () => {
  let dataDir: string;
  let driver: RuntimeDriver;
  let probe: Probe;
  let ownData: string;
  let otherData: string;

  beforeAll(async () => {
    dataDir = makeDataDir();
    driver = await createLocalDriver({ dataDir, allowPartial: false, forward: { host: "127.0.0.1", port: 5432 } });
    ownData = path.join(dataDir, "apps", "prober", "data");
    otherData = path.join(dataDir, "apps", "other", "data");
    mkdirSync(ownData, { recursive: true });
    mkdirSync(otherData, { recursive: true });
    writeFileSync(path.join(ownData, "mine.db"), "own database");
    writeFileSync(path.join(otherData, "theirs.db"), "other app's database");
    const release = makeRelease(dataDir, "prober", { "probe.js": PROBE });
    const targets = {
      reads: ["/data/mine.db", path.join(otherData, "theirs.db"), path.join(dataDir, "apps", "other", "data")],
      writes: ["/data/mine.db", "/data/new.db", path.join(otherData, "theirs.db")],
      connects: [
        [SERVICE_ADDRESS, 5432],
        [SERVICE_ADDRESS, 6379],
        [SERVICE_ADDRESS, 22],
        ["127.0.0.1", 5432],
        ["10.201.0.1", 5432],
      ],
    };
    const output = collectOutput();
    const instance = await driver.start({
      appKey: "prober",
      instanceId: "prober-1",
      workDir: release,
      dataDir: ownData,
      argv: ["/usr/bin/node", "probe.js"],
      env: { TARGETS: JSON.stringify(targets) },
      limits: LIMITS,
      onOutput: output.sink,
    });
    await instance.exited;
    probe = lastJson<Probe>(output);
  }, 60_000);

  afterAll(async () => {
    await driver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("binds the app's own data directory read-write at /data, and no other app's", () => {
    expect(probe.dataListing).toEqual(["mine.db"]);
    expect(probe.reads["/data/mine.db"]).toBe("READ own database");
    expect(probe.writes["/data/mine.db"]).toBe("WROTE");
    expect(probe.writes["/data/new.db"]).toBe("WROTE");
    expect(probe.reads[path.join(otherData, "theirs.db")]).toMatch(/^(ENOENT|EACCES)$/);
    expect(probe.writes[path.join(otherData, "theirs.db")]).toMatch(/^(ENOENT|EACCES|EROFS)$/);
  });

  it("forwards the PostgreSQL port of the provision server at the service address, and nothing else", () => {
    expect(driver.appEndpoint({ host: "127.0.0.1", port: 5432 })).toEqual({ host: SERVICE_ADDRESS, port: 5432 });
    expect(driver.appEndpoint({ host: "127.0.0.1", port: 6379 })).toEqual({ host: "127.0.0.1", port: 6379 });
    expect(driver.sandbox.layers.find((l) => l.name === "network")?.detail).toContain(`at ${SERVICE_ADDRESS}:5432 only`);
    const { [`${SERVICE_ADDRESS}:5432`]: postgres, ...others } = probe.connects;
    expect(postgres).toBe("CONNECTED");
    for (const [target, outcome] of Object.entries(others)) expect(outcome, target).not.toBe("CONNECTED");
    expect(probe.fromLoopback, "a connection from the app's own 127.0.0.1").toMatch(/^(E[A-Z]+|TIMEOUT)$/);
  });
});

describe("the services table", () => {
  it("forwards exactly one TCP port of one IPv4 address, and takes nothing else into the nftables script", () => {
    const rules = serviceRules({ host: "127.0.0.1", port: 5432 });
    expect(rules.match(/dnat ip to [^\s]+/g)).toEqual(["dnat ip to 127.0.0.1:5432"]);
    expect(rules).toContain(`ip daddr ${SERVICE_ADDRESS} tcp dport 5432`);
    for (const host of ["127.0.0.1 accept; flush ruleset", "db.example.com", "::1", "127.0.0.1\n}"]) {
      expect(() => serviceRules({ host, port: 5432 }), host).toThrow(/IPv4/);
    }
    for (const port of [0, 65536, 5432.5, Number.NaN]) expect(() => serviceRules({ host: "127.0.0.1", port }), String(port)).toThrow(/port/);
  });
});
