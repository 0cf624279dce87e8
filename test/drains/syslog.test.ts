// The syslog wire format, checked by the strict receiver the drain tests use (and the receiver's parser checked
// too): octet-counted frames however the stream is cut, RFC 5424 headers, the nil value for empty fields.
import { describe, expect, it } from "vitest";
import { syslogFrames, syslogMessage, syslogTimestamp } from "../../server/drains/syslog-format.ts";
import type { LogLineRecord } from "../../server/hosting/logs/store.ts";
import { OctetCountingParser, parseRfc5424 } from "../helpers/syslog.ts";

const line = (over: Partial<LogLineRecord> = {}): LogLineRecord => ({
  timestamp: "2026-11-29T03:04:05.123000042Z",
  kind: "runtime",
  stream: "stdout",
  deploymentId: "dep_1",
  process: "web.1",
  line: "GET / 200",
  ...over,
});

describe("the receiver's parser", () => {
  it("splits frames cut anywhere, keeping spaces and newlines inside a message", () => {
    const messages: string[] = [];
    const parser = new OctetCountingParser((m) => messages.push(m.toString()));
    const stream = Buffer.from("11 hello world5 a\nb c1 x");
    for (let i = 0; i < stream.length; i++) parser.push(stream.subarray(i, i + 1));
    expect(messages).toEqual(["hello world", "a\nb c", "x"]);
  });

  it.each(["0 x", "01 x", "abc x", "12345678901"])("refuses the frame %j", (frame) => {
    expect(() => new OctetCountingParser(() => {}).push(Buffer.from(frame))).toThrow(/bad frame length/);
  });

  it.each([
    "<14>2 2026-11-29T03:04:05Z h a p m - x",
    "<192>1 2026-11-29T03:04:05Z h a p m - x",
    "<14>1 2026-11-29T03:04:05.1234567Z h a p m - x",
    "<14>1 2026-11-29 h a p m - x",
    "<14>1 2026-11-29T03:04:05Z h a p m x",
  ])("refuses the message %j", (message) => {
    expect(() => parseRfc5424(message)).toThrow();
  });
});

describe("syslog messages", () => {
  it("is <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID - MSG", () => {
    const parsed = parseRfc5424(syslogMessage("slipway.example.com", "shop", line()));
    expect(parsed).toEqual({
      pri: 14,
      facility: 1,
      severity: 6,
      timestamp: "2026-11-29T03:04:05.123Z",
      hostname: "slipway.example.com",
      appName: "shop",
      procId: "web.1",
      msgId: "runtime",
      structuredData: "-",
      msg: "GET / 200",
    });
  });

  it("names the process: build for a build, slipway for the platform's own lines; stderr is an error", () => {
    expect(parseRfc5424(syslogMessage("h", "shop", line({ kind: "build", process: null, stream: "stderr" })))).toMatchObject({ procId: "build", msgId: "build", severity: 3 });
    expect(parseRfc5424(syslogMessage("h", "shop", line({ process: null, stream: "system" })))).toMatchObject({ procId: "slipway", severity: 5 });
    expect(parseRfc5424(syslogMessage("h", "shop", line({ kind: "run", process: "run.run_1" })))).toMatchObject({ procId: "run.run_1", msgId: "run" });
  });

  it("frames each message by its length in bytes (not characters), empty lines included", () => {
    const lines = [line({ line: "héllo ✓" }), line({ line: "" }), line({ line: "a b  c" })];
    const messages: string[] = [];
    new OctetCountingParser((m) => messages.push(m.toString("utf8"))).push(syslogFrames("h", "shop", lines));
    expect(messages.map((m) => parseRfc5424(m).msg)).toEqual(["héllo ✓", "", "a b  c"]);
  });

  it("keeps the millisecond of a log timestamp (RFC 5424 allows six fractional digits)", () => {
    expect(syslogTimestamp("2026-11-29T03:04:05.123000042Z")).toBe("2026-11-29T03:04:05.123Z");
  });
});
