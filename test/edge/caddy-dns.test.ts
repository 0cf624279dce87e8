// The DNS server Caddy finds proxied apps' instances through (EDGE=caddy), queried over TCP as Caddy's Go resolver
// does, with queries built and answers read here (not with the server's own wire code): SRV answers from the
// published route table, A/AAAA answers for the targets' names, NXDOMAIN/REFUSED for anything else, and when a
// change counts as taken (a query answered after it, or the refresh and a margin elapsed).
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressName, REFRESH_MS, srvName, startUpstreamDns, type UpstreamDns } from "../../server/platform/edge/caddy-dns.ts";
import type { RouteSnapshot } from "../../server/hosting/routes.ts";

const SRV = 33;
const A = 1;
const AAAA = 28;

interface Reply {
  rcode: number;
  authoritative: boolean;
  id: number;
  answers: { type: number; data: Buffer; srv?: { port: number; target: string } }[];
}

function query(name: string, type: number, id = 4242): Buffer {
  const labels = name.replace(/\.$/, "").split(".");
  const question = Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0, type >> 8, type & 0xff, 0, 1])]);
  // RD set, one question, and an EDNS(0) OPT record as Go's resolver sends.
  const header = Buffer.from([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1]);
  const opt = Buffer.from([0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0]);
  return Buffer.concat([header, question, opt]);
}

/** Reads a name at `offset` (pointers followed); returns it and where the name ended in place. */
function readName(message: Buffer, offset: number): [string, number] {
  const labels: string[] = [];
  let end = -1;
  for (;;) {
    const length = message[offset];
    if (length === 0) break;
    if (length >= 0xc0) {
      if (end < 0) end = offset + 2;
      offset = message.readUInt16BE(offset) & 0x3fff;
      continue;
    }
    labels.push(message.toString("latin1", offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  return [`${labels.join(".")}.`, end < 0 ? offset + 1 : end];
}

function parse(message: Buffer): Reply {
  const flags = message.readUInt16BE(2);
  expect(flags & 0x8000).toBe(0x8000);
  expect(message.readUInt16BE(4)).toBe(1);
  let [, offset] = readName(message, 12);
  offset += 4;
  const answers: Reply["answers"] = [];
  for (let i = 0; i < message.readUInt16BE(6); i++) {
    const [owner, after] = readName(message, offset);
    expect(owner).not.toBe(".");
    const type = message.readUInt16BE(after);
    const length = message.readUInt16BE(after + 8);
    const data = message.subarray(after + 10, after + 10 + length);
    answers.push({ type, data, ...(type === SRV ? { srv: { port: data.readUInt16BE(4), target: readName(message, after + 16)[0] } } : {}) });
    offset = after + 10 + length;
  }
  return { rcode: flags & 0xf, authoritative: (flags & 0x0400) !== 0, id: message.readUInt16BE(0), answers };
}

/** One query over a fresh TCP connection (2-byte length framing), as Go's resolver sends them. */
function ask(dns: UpstreamDns, name: string, type: number): Promise<Reply> {
  const [host, port] = dns.address.replace(/^tcp\//, "").split(":");
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), host);
    const message = query(name, type);
    const length = Buffer.from([message.length >> 8, message.length & 0xff]);
    socket.end(Buffer.concat([length, message]));
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        socket.destroy();
        resolve(parse(buffered.subarray(2, 2 + buffered.readUInt16BE(0))));
      }
    });
    socket.on("error", reject);
  });
}

const proxy = (...upstreams: [string, number][]): RouteSnapshot["apps"][number][1] => ({ kind: "proxy", upstreams: upstreams.map(([host, port]) => ({ host, port })) });

describe("Caddy's DNS source of upstreams", () => {
  let dns: UpstreamDns;
  beforeAll(async () => {
    dns = await startUpstreamDns("127.0.0.1");
  });
  afterAll(() => dns.close());

  it("listens on loopback TCP only, in the form of Caddy's resolver option", () => {
    expect(dns.address).toMatch(/^tcp\/127\.0\.0\.1:\d+$/);
  });

  it("answers a proxied app's SRV name with its instances, their targets resolving to their addresses", async () => {
    expect(dns.publish([["shop", proxy(["127.0.0.1", 40001], ["10.202.0.7", 3000])], ["site", { kind: "static", root: "/x" }]])).toEqual(["shop"]);
    const reply = await ask(dns, srvName("shop"), SRV);
    expect([reply.rcode, reply.authoritative, reply.id]).toEqual([0, true, 4242]);
    const srv = reply.answers.map((a) => a.srv);
    expect(srv).toEqual([
      { port: 3000, target: "0aca0007.ip.slipway.internal." },
      { port: 40001, target: "7f000001.ip.slipway.internal." },
    ]);
    const a = await ask(dns, "7f000001.ip.slipway.internal.", A);
    expect(a.answers.map((x) => [x.type, [...x.data].join(".")])).toEqual([[A, "127.0.0.1"]]);
    // An IPv4 target has no AAAA record: an empty answer, not an error (Go asks for both).
    expect(await ask(dns, "7f000001.ip.slipway.internal.", AAAA)).toMatchObject({ rcode: 0, answers: [] });
    expect(await ask(dns, srvName("shop"), A)).toMatchObject({ rcode: 0, answers: [] });
  });

  it("names IPv6 instances by their 16 bytes", async () => {
    expect(addressName("::1")).toBe(`${"0".repeat(31)}1.ip.slipway.internal.`);
    expect(addressName("fd00:1::ab")).toBe(`fd000001${"0".repeat(20)}00ab.ip.slipway.internal.`);
    expect(addressName("::ffff:10.0.0.1")).toBe(`${"0".repeat(20)}ffff0a000001.ip.slipway.internal.`);
    const reply = await ask(dns, addressName("fd00:1::ab"), AAAA);
    expect(reply.answers.map((x) => x.data.toString("hex"))).toEqual([`fd000001${"0".repeat(20)}00ab`]);
    expect(() => addressName("db.internal")).toThrow(/must be an IP address/);
  });

  it("answers NXDOMAIN for what it does not know in its zone, and refuses other names", async () => {
    expect((await ask(dns, srvName("site"), SRV)).rcode).toBe(3);
    expect((await ask(dns, srvName("nobody"), SRV)).rcode).toBe(3);
    expect((await ask(dns, "zz.ip.slipway.internal.", A)).rcode).toBe(3);
    expect((await ask(dns, "example.com.", A)).rcode).toBe(5);
  });

  it("counts a change as taken once a query was answered after it, or after the refresh and a margin", async () => {
    expect(dns.publish([["shop", proxy(["127.0.0.1", 40001], ["10.202.0.7", 3000])]])).toEqual([]);
    expect(dns.publish([["shop", proxy(["127.0.0.1", 40002])]])).toEqual(["shop"]);
    let taken = false;
    const settled = dns.settled(["shop"]).then(() => (taken = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(taken).toBe(false);
    // Caddy asks (its cached answer went stale): it has the new one.
    expect((await ask(dns, srvName("shop"), SRV)).answers.map((a) => a.srv?.port)).toEqual([40002]);
    await settled;

    // Nobody asks: taken once whatever Caddy cached before is stale.
    const started = Date.now();
    expect(dns.publish([["shop", proxy(["127.0.0.1", 40003])]])).toEqual(["shop"]);
    await dns.settled(["shop"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(REFRESH_MS);
    // Removed (its route no longer looks it up): nothing to wait for, and unknown from now on.
    expect(dns.publish([])).toEqual([]);
    await dns.settled(["shop"]);
    expect((await ask(dns, srvName("shop"), SRV)).rcode).toBe(3);
  });
});
