// `slipway login/whoami/logout` run as child processes against a real server: the device flow approved over
// HTTP by the user, the stored login (0600), transparent and rotation-safe refresh, SLIPWAY_TOKEN, and
// the errors a person sees.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { cliHome, decideDevice, login, readStoredCredentials, runCli, startCli, type CliHome } from "./helpers.ts";

let server: TestServer;
let user: Client;
let account: Awaited<ReturnType<Client["signup"]>>;
let home: CliHome;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  user = new Client(server.url);
  account = await user.signup();
  home = cliHome();
  await login(home, server.url, user);
});
afterAll(async () => {
  await server?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

const credentialsFile = () => path.join(home.configDir, "slipway", "credentials.json");
const rewrite = (change: (c: any) => void) => {
  const c = readStoredCredentials(home);
  change(c);
  fs.writeFileSync(credentialsFile(), JSON.stringify(c));
};

describe("the first-party CLI client", () => {
  it("exists at boot with its fixed id, public, and is named in the authorization server metadata", async () => {
    const row = await server.slipway.platform.db.oAuthClient.findUnique({ where: { clientId: "svc_slipway_cli" } });
    expect(row).toMatchObject({ public: true, ownerId: null });
    expect(await server.slipway.platform.db.oAuthClientSecret.count({ where: { clientId: row!.id } })).toBe(0);
    const metadata = await new Client(server.url).get("/.well-known/oauth-authorization-server");
    expect(metadata.body.slipway_cli_client_id).toBe("svc_slipway_cli");
  });

  it("is restored at boot if its row was changed, and booting again (or twice at once) keeps one row", async () => {
    const db = server.slipway.platform.db;
    await db.oAuthClient.update({ where: { clientId: "svc_slipway_cli" }, data: { public: false, secrets: { create: { secretHash: "x" } }, name: "Changed" } });
    const clients = server.slipway.platform.services.oauthClients;
    await Promise.all([clients.ensureFirstParty(), clients.ensureFirstParty()]);
    expect(await db.oAuthClient.findMany({ where: { clientId: "svc_slipway_cli" } })).toEqual([
      expect.objectContaining({ public: true, name: "Slipway CLI", ownerId: null }),
    ]);
    expect(await db.oAuthClientSecret.count({ where: { client: { clientId: "svc_slipway_cli" } } })).toBe(0);
  });

  it("is not among any user's OAuth apps and cannot be edited or deleted by one", async () => {
    const list = await user.get("/api/oauth/clients");
    expect(list.body.map((c: { clientId: string }) => c.clientId)).not.toContain("svc_slipway_cli");
    expect((await user.request("DELETE", "/api/oauth/clients/svc_slipway_cli")).status).toBe(404);
  });
});

describe("slipway login", () => {
  it("stored the tokens in XDG_CONFIG_HOME/slipway with mode 0600 in a 0700 folder", () => {
    const stat = fs.statSync(credentialsFile());
    expect(stat.mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(credentialsFile())).mode & 0o777).toBe(0o700);
    expect(readStoredCredentials(home)).toMatchObject({
      server: server.url,
      clientId: "svc_slipway_cli",
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      user: { name: account.name, email: account.email },
    });
  });

  it("opens the browser at the code's page when there is a display; says so and exits 1 when the user denies", async () => {
    const other = cliHome();
    // A stand-in for xdg-open that notes the address it was asked to open.
    const bin = path.join(other.home, "bin");
    fs.mkdirSync(bin);
    const opened = path.join(other.home, "opened.txt");
    fs.writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > ${JSON.stringify(opened)}\n`, { mode: 0o755 });
    const running = startCli(other, ["login", "--server", server.url], { env: { PATH: `${bin}:${process.env.PATH}`, DISPLAY: ":99" } });
    const [, code] = await running.waitFor(/enter the code: ([A-Z]{4}-[A-Z]{4})/);
    expect(running.stdout()).toContain(`${server.url}/oauth/device`);
    await waitFor(async () => fs.existsSync(opened), 10_000, "the browser");
    expect(fs.readFileSync(opened, "utf8")).toBe(`${server.url}/oauth/device?user_code=${code}`);
    await decideDevice(user, code, "deny");
    const result = await running.exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("The login was denied in the browser.");
    expect(fs.existsSync(path.join(other.configDir, "slipway", "credentials.json"))).toBe(false);
  });

  it("waits longer after slow_down, as RFC 8628 asks", async () => {
    // An HTTP proxy in front of the server answers the first device-code poll with slow_down itself.
    const polls: number[] = [];
    const front = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      if (req.url === "/oauth/token" && body.toString().includes("device_code")) {
        polls.push(Date.now());
        if (polls.length === 1) {
          res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "slow_down", error_description: "Polling too fast." }));
          return;
        }
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k))) as Record<string, string>;
      const answer = await fetch(server.url + req.url, { method: req.method, headers, body: req.method === "GET" ? undefined : body });
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" }).end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    try {
      const frontUrl = `http://127.0.0.1:${(front.address() as { port: number }).port}`;
      const other = cliHome();
      const running = startCli(other, ["login", "--server", frontUrl, "--no-browser"]);
      const [, code] = await running.waitFor(/enter the code: ([A-Z]{4}-[A-Z]{4})/);
      await waitFor(async () => polls.length >= 2, 30_000, "the second poll");
      await decideDevice(user, code);
      const result = await running.exited;
      expect(result.code, result.stderr).toBe(0);
      // The interval (5 s) grew by 5 s after slow_down, and stayed there (the second poll may already succeed).
      expect(polls.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < polls.length; i += 1) expect(polls[i] - polls[i - 1]).toBeGreaterThanOrEqual(9_900);
    } finally {
      await new Promise((resolve) => front.close(resolve));
    }
  }, 60_000);

  it("names the server it could not reach", async () => {
    const port = await freePort();
    const result = await runCli(cliHome(), ["login", "--server", `http://127.0.0.1:${port}`, "--no-browser"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Could not reach the Slipway server at http://127.0.0.1:${port}`);
  });
});

describe("slipway whoami", () => {
  it("prints the account, and JSON with --json", async () => {
    const text = await runCli(home, ["whoami"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`${account.name} <${account.email}> on ${server.url}`);
    const json = await runCli(home, ["whoami", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ server: server.url, name: account.name, email: account.email, status: "ACTIVE" });
  });

  it("without a login tells how to log in, exit 1", async () => {
    const result = await runCli(cliHome(), ["whoami"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("You are not logged in. Run `slipway login`");
  });

  it("uses SLIPWAY_TOKEN instead of the stored login, and says when the server refuses it", async () => {
    const token = readStoredCredentials(home).accessToken;
    const ci = cliHome();
    const ok = await runCli(ci, ["whoami", "--json"], { env: { SLIPWAY_TOKEN: token, SLIPWAY_SERVER: server.url } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).email).toBe(account.email);
    const bad = await runCli(ci, ["whoami"], { env: { SLIPWAY_TOKEN: "nope", SLIPWAY_SERVER: server.url } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("SLIPWAY_TOKEN");
  });
});

describe("token refresh", () => {
  it("refreshes an access token that has expired, and keeps the new tokens", async () => {
    const before = readStoredCredentials(home);
    rewrite((c) => (c.expiresAt = Date.now() - 1000));
    const result = await runCli(home, ["whoami"]);
    expect(result.code, result.stderr).toBe(0);
    const after = readStoredCredentials(home);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.expiresAt).toBeGreaterThan(Date.now());
    expect(fs.statSync(credentialsFile()).mode & 0o777).toBe(0o600);
  });

  it("refreshes when the server refuses the access token before its stored expiry", async () => {
    rewrite((c) => (c.accessToken = "revoked-or-unknown"));
    const result = await runCli(home, ["whoami", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).email).toBe(account.email);
    expect(readStoredCredentials(home).accessToken).not.toBe("revoked-or-unknown");
  });

  it("is rotation-safe: commands refreshing at once spend the refresh token once, and the login keeps working", async () => {
    rewrite((c) => (c.expiresAt = Date.now() - 1000));
    const results = await Promise.all([1, 2, 3, 4].map(() => runCli(home, ["whoami", "--json"])));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(home.configDir, "slipway", "credentials.lock"))).toBe(false);
    // A refresh token spent twice would have revoked the whole grant: the next refresh proves it was not.
    rewrite((c) => (c.expiresAt = Date.now() - 1000));
    const again = await runCli(home, ["whoami"]);
    expect(again.code, again.stderr).toBe(0);
  });
});

describe("slipway logout", () => {
  it("revokes the tokens on the server and deletes them", async () => {
    const other = cliHome();
    // A SLIPWAY_TOKEN in the environment plays no part in logging in (it would be refused here).
    await login(other, server.url, user, { SLIPWAY_TOKEN: "not-a-token" });
    expect(readStoredCredentials(other).user).toEqual({ name: account.name, email: account.email });
    const { accessToken, refreshToken } = readStoredCredentials(other);
    const bearer = new Client(server.url);
    bearer.token = accessToken;
    expect((await bearer.get("/api/me")).status).toBe(200);
    const result = await runCli(other, ["logout"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Logged out of ${server.url}`);
    expect(fs.existsSync(path.join(other.configDir, "slipway", "credentials.json"))).toBe(false);
    expect((await bearer.get("/api/me")).status).toBe(401);
    const refresh = await new Client(server.url).request("POST", "/oauth/token", {
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: "svc_slipway_cli" }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(refresh.status).toBe(400);
    expect((await runCli(other, ["whoami"])).code).toBe(1);
  });
});
