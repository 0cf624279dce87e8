import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, configWarnings, loadConfig } from "../../server/config.ts";

describe("configuration", () => {
  it("has the contract's defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      publicUrl: "http://localhost:3000",
      databaseProvider: "sqlite",
      requireApproval: false,
      appsDomain: "localhost",
      githubUrl: "https://github.com",
      runtime: "local",
      defaultQuota: { requestsPerMinute: 120, maxApps: 5, maxDatabases: 3, cdnBytes: 100n * 1024n * 1024n, maxUploadBytes: 50n * 1024n * 1024n },
    });
    expect(config.databaseUrl).toBe(`file:${path.resolve("data/slipway.db")}`);
  });

  it("derives PUBLIC_URL from PORT, reads lists and booleans, and picks PostgreSQL from the URL", () => {
    const config = loadConfig({
      PORT: "8080",
      ADMIN_EMAILS: " Ada@Example.com, bob@example.com ,",
      REQUIRE_APPROVAL: "true",
      DATABASE_URL: "postgresql://u@h/db",
    });
    expect(config.publicUrl).toBe("http://localhost:8080");
    expect([...config.adminEmails]).toEqual(["ada@example.com", "bob@example.com"]);
    expect(config.requireApproval).toBe(true);
    expect(config.databaseProvider).toBe("postgresql");
    expect(loadConfig({ PUBLIC_URL: "https://slipway.example/" })).toMatchObject({ publicUrl: "https://slipway.example", secureCookies: true });
    expect(loadConfig({ RUNTIME: "docker", DOCKER_HOST: "tcp://10.0.0.5:2375", DOCKER_BASE_IMAGE: "slipway/base:20" })).toMatchObject({
      runtime: "docker",
      docker: { host: "tcp://10.0.0.5:2375", baseImage: "slipway/base:20" },
    });
    expect(loadConfig({ RUNTIME: "swarm", REGISTRY_URL: "10.0.0.5:5000" })).toMatchObject({ runtime: "swarm", docker: { registry: "10.0.0.5:5000" } });
  });

  it.each([
    [{ PORT: "eighty" }, /PORT/],
    [{ REQUIRE_APPROVAL: "maybe" }, /REQUIRE_APPROVAL: expected true or false/],
    [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL: expected file:/],
    [{ RUNTIME: "kubernetes" }, /RUNTIME: expected local \(sandboxed processes\), docker .* or swarm/],
    [{ RUNTIME: "swarm", REGISTRY_URL: "http://10.0.0.5:5000/v2" }, /REGISTRY_URL: expected a registry's host\[:port\]/],
    [{ RUNTIME: "docker", DOCKER_HOST: "/var/run/docker.sock" }, /DOCKER_HOST: expected unix:\/\/\/var\/run\/docker.sock or tcp:/],
    [{ RUNTIME: "docker", DOCKER_BASE_IMAGE: "bad image" }, /DOCKER_BASE_IMAGE: expected an image reference/],
    [{ DEFAULT_REQUESTS_PER_MINUTE: "0" }, /DEFAULT_REQUESTS_PER_MINUTE/],
    [{ DEFAULT_SLEEP_AFTER_MINUTES: "0" }, /DEFAULT_SLEEP_AFTER_MINUTES: expected 1 or more/],
    [{ DEFAULT_SLEEP_AFTER_MINUTES: "10081" }, /DEFAULT_SLEEP_AFTER_MINUTES: expected 10080 \(a week\) or fewer/],
    [{ METRICS_TOKEN: "short" }, /METRICS_TOKEN: expected at least 16 characters/],
    [{ S3_ENDPOINT: "https://s3.example" }, /must be set together/],
    [{ CORS_ORIGINS: "*" }, /CORS_ORIGINS: a wildcard \(\*\) is not allowed/],
    [{ CORS_ORIGINS: "https://a.example, *" }, /CORS_ORIGINS: a wildcard/],
    [{ CORS_ORIGINS: "https://a.example/path" }, /CORS_ORIGINS: expected comma-separated origins/],
    [{ CORS_ORIGINS: "a.example" }, /CORS_ORIGINS: expected comma-separated origins/],
  ])("rejects %o naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it("stops the server at boot with one line naming the bad variable", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "server/main.ts"], {
      env: { ...process.env, PORT: "not-a-port", DATA_DIR: "/tmp/slipway-never" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^Invalid configuration: PORT: /);
  });
});

describe("build-time settings", () => {
  it("reads BUILD_ENV as a JSON object of strings and BUILD_READONLY_PATHS as absolute folders; neither by default", () => {
    expect(loadConfig({}).hosting.build).toEqual({ env: {}, readOnlyPaths: [] });
    const config = loadConfig({ BUILD_ENV: '{"PIP_INDEX_URL":"http://mirror/simple","GOFLAGS":"-mod=vendor"}', BUILD_READONLY_PATHS: "/srv/pypi/, /opt/ca" });
    expect(config.hosting.build).toEqual({ env: { PIP_INDEX_URL: "http://mirror/simple", GOFLAGS: "-mod=vendor" }, readOnlyPaths: ["/srv/pypi", "/opt/ca"] });
  });

  it.each([
    [{ BUILD_ENV: "PIP_INDEX_URL=x" }, /^Invalid configuration: BUILD_ENV: expected a JSON object of string values.*\(got \[redacted\]\)$/],
    [{ BUILD_ENV: '{"A": 1}' }, /BUILD_ENV: expected a JSON object of string values/],
    [{ BUILD_ENV: '{"bad name": "x"}' }, /BUILD_ENV: expected a JSON object/],
    [{ BUILD_READONLY_PATHS: "srv/pypi" }, /BUILD_READONLY_PATHS: expected absolute directories/],
    [{ BUILD_READONLY_PATHS: "/srv/../etc" }, /BUILD_READONLY_PATHS: expected absolute directories/],
    [{ BUILD_READONLY_PATHS: "/" }, /BUILD_READONLY_PATHS: expected absolute directories/],
    [{ BUILD_READONLY_PATHS: "/usr/share/ca" }, /BUILD_READONLY_PATHS: expected directories outside the sandbox's own/],
    [{ BUILD_READONLY_PATHS: "/app" }, /BUILD_READONLY_PATHS: expected directories outside the sandbox's own/],
  ])("refuses %j with one line naming it (the value of BUILD_ENV redacted: it may hold a proxy's password)", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe("browser-facing settings", () => {
  it("allows no cross-origin access by default, and reads CORS_ORIGINS as a list of origins", () => {
    expect(loadConfig({}).corsOrigins.size).toBe(0);
    const config = loadConfig({ CORS_ORIGINS: " https://App.example.com, http://localhost:5173/ ," });
    expect([...config.corsOrigins]).toEqual(["https://app.example.com", "http://localhost:5173"]);
  });

  it("is in production only with NODE_ENV=production", () => {
    expect(loadConfig({}).production).toBe(false);
    expect(loadConfig({ NODE_ENV: "test" }).production).toBe(false);
    expect(loadConfig({ NODE_ENV: "production" }).production).toBe(true);
  });

  it.each([
    ["https://slipway.example.com", "apps.example.com", true],
    ["https://example.com", "example.com", true],
    ["https://dash.apps.example.com", "apps.example.com", true],
    ["http://localhost:3000", "localhost", true],
    ["https://slipway.example.com", "example-apps.com", false],
    ["https://heroku.com", "herokuapp.com", false],
    ["https://dashboard.herokuapp.com", "herokuapp.com", false], // a public suffix: every app is a site of its own
    ["http://127.0.0.1:3000", "localhost", false],
  ])("warns when PUBLIC_URL %s and APPS_DOMAIN %s are the same site: %s", (publicUrl, appsDomain, warns) => {
    const warnings = configWarnings(loadConfig({ PUBLIC_URL: publicUrl, APPS_DOMAIN: appsDomain }));
    expect(warnings.length > 0).toBe(warns);
    if (warns) expect(warnings[0]).toMatch(/APPS_DOMAIN .* another registrable domain/);
  });

  it("logs that warning at boot", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-config-"));
    const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, PUBLIC_URL: "https://slipway.example.com", APPS_DOMAIN: "apps.example.com", LOG_LEVEL: "warn" },
    });
    let output = "";
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no warning logged: ${output}`)), 20_000);
        child.stdout.on("data", (chunk) => {
          output += chunk;
          if (output.includes("APPS_DOMAIN")) resolve(clearTimeout(timer));
        });
        child.once("exit", (code) => reject(new Error(`exited with ${code}: ${output}`)));
      });
    } finally {
      const exited = new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(null)));
      child.kill();
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    expect(JSON.parse(output.split("\n").find((line) => line.includes("APPS_DOMAIN"))!)).toMatchObject({ level: 40 });
  });
});
