// `slipway drains`, `drains:add` and `drains:remove` as child processes against a real server and a real syslog
// receiver (OUTBOUND_ALLOWED_HOSTS lists 127.0.0.1): a line the app logs reaches the receiver, the list shows what
// the drain sent; a refused URL exits 1 with the server's reason naming url.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { startSyslogReceiver, type SyslogReceiver } from "../helpers/syslog.ts";
import { cliHome, login, runCli, type CliHome } from "./helpers.ts";

let server: TestServer;
let receiver: SyslogReceiver;
let home: CliHome;
const slug = `cli-drn-${process.pid}`;

beforeAll(async () => {
  receiver = await startSyslogReceiver();
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
  const user = new Client(server.url);
  await user.signup();
  expect((await user.post("/api/apps", { slug })).status).toBe(201);
  home = cliHome();
  await login(home, server.url, user);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await receiver?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

describe("slipway drains", () => {
  it("drains:add, drains (what each sent), drains:remove", async () => {
    const empty = await runCli(home, ["drains", "--app", slug]);
    expect([empty.code, empty.stdout.trim()]).toEqual([0, `${slug} has no log drains. Add one with \`slipway drains:add <url>\`.`]);

    const url = `syslog://127.0.0.1:${receiver.port}`;
    const added = await runCli(home, ["drains:add", url, "--app", slug, "--json"]);
    expect(added.code, added.stderr).toBe(0);
    const drain = JSON.parse(added.stdout);
    expect(drain).toMatchObject({ id: expect.stringMatching(/^drn_/), url, sent: 0, dropped: 0 });

    const { platform } = server.slipway;
    const app = await platform.db.app.findUniqueOrThrow({ where: { slug } });
    platform.engine.logs.append(app.id, { kind: "runtime", stream: "stdout", deploymentId: null, process: "web.1", line: "hello, drain" });
    await waitFor(async () => receiver.messages.some((m) => m.appName === slug && m.procId === "web.1" && m.msg === "hello, drain"), 10_000, "the line at the receiver");

    const listed = await waitFor(async () => {
      const out = await runCli(home, ["drains", "--app", slug]);
      return new RegExp(`^${drain.id}\\s+${url.replace(/[.+]/g, "\\$&")}\\s+1\\s+0\\s*$`, "m").test(out.stdout) && out;
    }, 15_000, "the sent count listed");
    expect(listed.stdout).toMatch(/^ID\s+URL\s+SENT\s+DROPPED\s+LAST ERROR/m);

    const removed = await runCli(home, ["drains:remove", drain.id, "--app", slug]);
    expect([removed.code, removed.stdout.trim()]).toEqual([0, `Removed ${drain.id} from ${slug}: its lines no longer go there.`]);
    expect(JSON.parse((await runCli(home, ["drains", "--app", slug, "--json"])).stdout)).toEqual([]);
  }, 60_000);

  it("exits 1 with the server's reason for a refused URL", async () => {
    const refused = await runCli(home, ["drains:add", "syslog://10.1.2.3:514", "--app", slug]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/url: 10\.1\.2\.3, a private address/);
    const gone = await runCli(home, ["drains:remove", "drn_nope", "--app", slug]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('has no log drain "drn_nope"');
  });
});
