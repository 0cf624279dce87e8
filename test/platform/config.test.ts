import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.ts";

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
  });

  it.each([
    [{ PORT: "eighty" }, /PORT/],
    [{ REQUIRE_APPROVAL: "maybe" }, /REQUIRE_APPROVAL: expected true or false/],
    [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL: expected file:/],
    [{ RUNTIME: "docker" }, /RUNTIME: expected local or kubernetes/],
    [{ DEFAULT_REQUESTS_PER_MINUTE: "0" }, /DEFAULT_REQUESTS_PER_MINUTE/],
    [{ S3_ENDPOINT: "https://s3.example" }, /must be set together/],
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
