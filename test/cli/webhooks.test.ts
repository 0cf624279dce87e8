// `slipway webhooks…` as a child process against a real server and a real local receiver (OUTBOUND_ALLOWED_HOSTS
// lists 127.0.0.1): add prints the secret once and the receiver's test delivery verifies with it; the list, the
// delivery log and remove; a refused URL exits 1 with the server's reason.
import { createHmac } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { cliHome, login, runCli, type CliHome } from "./helpers.ts";

let server: TestServer;
let receiver: http.Server;
let url: string;
const received: { signature: string; raw: string }[] = [];
let home: CliHome;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c)).on("end", () => {
      received.push({ signature: String(req.headers["x-slipway-signature-256"]), raw });
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
  const user = new Client(server.url);
  await user.signup();
  home = cliHome();
  await login(home, server.url, user);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

describe("slipway webhooks", () => {
  it("adds one (its secret printed once), sends a test the receiver verifies, lists it, shows the log, removes it", async () => {
    const add = await runCli(home, ["webhooks:add", url, "--events", "deploy.failed,app.crashed", "--description", "pager"]);
    expect(add.code).toBe(0);
    const id = /Added webhook (wh_\w+)/.exec(add.stdout)![1];
    const secret = /shown this once: (whsec_\S+)/.exec(add.stdout)![1];

    const list = await runCli(home, ["webhooks"]);
    expect(list.stdout).toMatch(new RegExp(`${id} +${url.replace(/[.]/g, "\\.")} +deploy\\.failed,app\\.crashed +pager`));
    expect(list.stdout).not.toContain(secret);

    expect((await runCli(home, ["webhooks:test", id])).code).toBe(0);
    const [ping] = await waitFor(async () => received.length > 0 && received, 10_000, "the test delivery");
    expect(ping.signature).toBe(`sha256=${createHmac("sha256", secret).update(ping.raw).digest("hex")}`);
    const log = await waitFor(async () => {
      const out = (await runCli(home, ["webhooks:deliveries", id])).stdout;
      return /SUCCEEDED/.test(out) && out;
    }, 10_000, "the delivery logged");
    expect(log).toMatch(/dlv_\w+ +ping +SUCCEEDED \(answered 200\) +1/);

    expect((await runCli(home, ["webhooks:remove", id])).code).toBe(0);
    expect((await runCli(home, ["webhooks"])).stdout).toContain("No webhooks.");
  });

  it("exits 1 with the server's reason for a private address", async () => {
    const refused = await runCli(home, ["webhooks:add", "http://10.1.2.3/hook", "--events", "deploy.failed"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/10\.1\.2\.3, a private address.*OUTBOUND_ALLOWED_HOSTS/);
  });
});
