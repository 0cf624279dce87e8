// The drains' connections go through the outbound guard each time they open: a name that resolved to a public
// address when the drain was saved and now resolves to a private one (DNS rebinding) is refused, over syslog and
// HTTPS alike; an allowed one is reached.
import net from "node:net";
import { describe, expect, it } from "vitest";
import { HttpsTransport } from "../../server/drains/https-transport.ts";
import { SyslogTransport } from "../../server/drains/syslog-transport.ts";
import type { LogLineRecord } from "../../server/hosting/logs/store.ts";
import { OutboundGuard } from "../../server/platform/outbound.ts";
import { startSyslogReceiver } from "../helpers/syslog.ts";

const lines: LogLineRecord[] = [{ timestamp: "2026-11-29T03:04:05.123000000Z", kind: "runtime", stream: "stdout", deploymentId: null, process: "web.1", line: "hi" }];
/** Resolves every name to ADDRESS, as a rebinding name server would once the URL was saved. */
const rebindingGuard = (address: string, allow: string[] = []) => new OutboundGuard({ hosts: [], ranges: allow }, async () => [{ address, family: net.isIP(address) }]);

describe("drain connections", () => {
  it("refuses a syslog drain whose name now resolves to a private address", async () => {
    const transport = new SyslogTransport({ url: new URL("syslog://logs.example.com:514"), guard: rebindingGuard("10.1.2.3"), ca: [], hostname: "h", appName: "shop" });
    await expect(transport.deliver(lines)).rejects.toThrow(/logs\.example\.com resolves to 10\.1\.2\.3, a private address/);
    transport.close();
  });

  it("refuses an HTTPS drain whose name now resolves to loopback", async () => {
    const transport = new HttpsTransport({ url: new URL("https://logs.example.com/in"), guard: rebindingGuard("127.0.0.1"), ca: [], appName: "shop" });
    await expect(transport.deliver(lines)).rejects.toThrow(/logs\.example\.com resolves to 127\.0\.0\.1, a loopback address/);
    transport.close();
  });

  it("connects to the address it checked when the operator allows it", async () => {
    const receiver = await startSyslogReceiver();
    const transport = new SyslogTransport({ url: new URL(`syslog://logs.example.com:${receiver.port}`), guard: rebindingGuard("127.0.0.1", ["127.0.0.1"]), ca: [], hostname: "h", appName: "shop" });
    await transport.deliver(lines);
    await expect.poll(() => receiver.messages.map((m) => [m.appName, m.procId, m.msg])).toEqual([["shop", "web.1", "hi"]]);
    transport.close();
    await receiver.close();
  });
});
