// A drain's syslog against a real receiver, rsyslog (Debian's `apt-get install -y rsyslog`; skipped without
// rsyslogd): its imtcp input reads the octet-counted frames and its RFC 5424 parser the messages, written back out
// field by field. Every line arrives once, in order, with the app's slug, the process, the log's kind and severity.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Drain } from "../../server/drains/drain.ts";
import { SyslogTransport } from "../../server/drains/syslog-transport.ts";
import { systemClock } from "../../server/hosting/clock.ts";
import type { LogLineRecord } from "../../server/hosting/logs/store.ts";
import { OutboundGuard } from "../../server/platform/outbound.ts";
import { waitFor } from "../helpers/apps.ts";
import { freePort } from "../helpers/server.ts";

const RSYSLOGD = ["/usr/sbin/rsyslogd", "/sbin/rsyslogd"].find((p) => fs.existsSync(p));
const LINES = 5000;

let dir: string;
let port: number;
let rsyslog: ChildProcess;

beforeAll(async () => {
  if (!RSYSLOGD) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-rsyslog-"));
  port = await freePort();
  fs.writeFileSync(
    path.join(dir, "rsyslog.conf"),
    [
      `global(workDirectory="${dir}")`,
      `module(load="imtcp")`,
      `input(type="imtcp" port="${port}" address="127.0.0.1")`,
      `template(name="fields" type="string" string="%app-name%|%procid%|%msgid%|%syslogseverity%|%timereported:::date-rfc3339%|%msg%\\n")`,
      `*.* action(type="omfile" file="${dir}/out.log" template="fields")`,
    ].join("\n"),
  );
  rsyslog = spawn(RSYSLOGD, ["-n", "-f", path.join(dir, "rsyslog.conf"), "-i", path.join(dir, "rsyslogd.pid")], { stdio: "ignore" });
  await waitFor(
    () => new Promise<boolean>((resolve) => net.connect(port, "127.0.0.1").on("connect", function (this: net.Socket) { this.destroy(); resolve(true); }).on("error", () => resolve(false))),
    10_000,
    "rsyslogd listening",
  );
});
afterAll(() => {
  rsyslog?.kill();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!RSYSLOGD)("a syslog drain into rsyslog", () => {
  it(`delivers ${LINES} lines, each once and in order, parsed by rsyslog as RFC 5424`, async () => {
    const guard = new OutboundGuard({ hosts: [], ranges: ["127.0.0.1"] });
    const drain = new Drain("drn_rsyslog", `syslog://127.0.0.1:${port}`, new SyslogTransport({ url: new URL(`syslog://127.0.0.1:${port}`), guard, ca: [], hostname: "slipway.test", appName: "shop" }), systemClock);
    const line = (i: number): LogLineRecord => ({
      timestamp: `2026-11-29T03:04:05.${String(i % 1000).padStart(3, "0")}000000Z`,
      kind: i === 0 ? "build" : "runtime",
      stream: i % 2 ? "stderr" : "stdout",
      deploymentId: null,
      process: i === 0 ? null : `web.${(i % 3) + 1}`,
      line: `line ${i}: héllo  wörld ✓ [brackets] "quotes"`,
    });
    for (let i = 0; i < LINES; i += 250) drain.enqueue(Array.from({ length: 250 }, (_, j) => line(i + j)));
    const out = await waitFor(async () => {
      const text = fs.existsSync(path.join(dir, "out.log")) ? fs.readFileSync(path.join(dir, "out.log"), "utf8") : "";
      const rows = text.split("\n").filter(Boolean);
      return rows.length >= LINES && rows;
    }, 20_000, "rsyslog's output");
    drain.close();
    expect(out).toHaveLength(LINES);
    expect(out[0]).toBe(`shop|build|build|6|2026-11-29T03:04:05.000Z|line 0: héllo  wörld ✓ [brackets] "quotes"`);
    expect(out[1]).toBe(`shop|web.2|runtime|3|2026-11-29T03:04:05.001Z|line 1: héllo  wörld ✓ [brackets] "quotes"`);
    expect(out.map((row) => Number(/\|line (\d+):/.exec(row)?.[1]))).toEqual(Array.from({ length: LINES }, (_, i) => i));
    expect(drain.sent).toBe(LINES);
    expect(drain.dropped).toBe(0);
  });
});
