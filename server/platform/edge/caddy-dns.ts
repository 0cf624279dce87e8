// Caddy finds a proxied app's instances by DNS (EDGE=caddy), so a deploy's switch, a scale change or a health
// change loads no configuration (a load would close Caddy's idle client connections). Each proxied app's route
// names `<slug>.apps.slipway.internal.` as an SRV source; this server, on a loopback TCP port, answers it from the
// last route table snapshot published here: one record per upstream, its target a name that encodes the address
// (`7f000001.ip.slipway.internal.`: Go rejects all-numeric targets), which the route's transport resolves through
// this server too (A or AAAA). TCP, not UDP: Caddy dials its resolver with the configured network only, so
// Go's TCP retry of a truncated UDP answer would never happen, and an app with many instances needs it.
//
// Caddy 2.6 caches an SRV answer for its `refresh` and looks the name up again on the first request after that.
// A changed answer has reached Caddy once a query for it was answered after the change, or once `refresh` (and
// a margin) has passed since: whatever Caddy cached before the change is stale then, so no new request uses it.
import net from "node:net";
import type { RouteSnapshot } from "../../hosting/routes.ts";
import { RCODE, readQuestion, TYPE, writeAnswer, type DnsRecord, type Question } from "./dns-message.ts";

const ZONE = "slipway.internal";
const APPS = `apps.${ZONE}`;
const ADDRESSES = `ip.${ZONE}`;
/** How stale Caddy's SRV cache may be; every new request after it asks again (one loopback round trip). */
export const REFRESH_MS = 250;
/** Between our answer and Caddy's clock reading for its cache entry. */
const MARGIN_MS = 100;

type Upstreams = Extract<RouteSnapshot["apps"][number][1], { kind: "proxy" }>["upstreams"];

interface Published {
  records: DnsRecord[];
  /** The answer's identity: a publish that gives the same one is no change. */
  key: string;
  changedAt: number;
  /** A query was answered with this version: Caddy has it. */
  served: boolean;
  waiters: Array<() => void>;
}

export interface UpstreamDns {
  /** The server as Caddy's `resolver` option takes it. */
  readonly address: string;
  readonly port: number;
  /** Replaces every proxied app's answer; returns the slugs whose answer changed (added ones included). */
  publish(apps: RouteSnapshot["apps"]): string[];
  /** Resolves once Caddy can no longer use an answer older than the current one of each slug. */
  settled(slugs: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** The SRV name a proxied app's route looks up. */
export function srvName(slug: string): string {
  return `${slug}.${APPS}.`;
}

/**
 * Listens on `host`, at `port` when it is free (a restarted platform takes its predecessor's, so the configuration
 * it gives Caddy is the same one and Caddy keeps running it), else on any free port.
 */
export async function startUpstreamDns(host: string, port = 0): Promise<UpstreamDns> {
  const published = new Map<string, Published>();
  const sockets = new Set<net.Socket>();

  function answer(message: Buffer): Buffer | null {
    const question = readQuestion(message);
    if (!question) return null;
    if (question.name.endsWith(`.${APPS}`)) return answerApp(question);
    if (question.name.endsWith(`.${ADDRESSES}`)) return answerAddress(question);
    return writeAnswer(question, question.name === ZONE || question.name.endsWith(`.${ZONE}`) ? RCODE.NXDOMAIN : RCODE.REFUSED);
  }

  function answerApp(question: Question): Buffer {
    const entry = published.get(question.name.slice(0, -APPS.length - 1));
    if (!entry) return writeAnswer(question, RCODE.NXDOMAIN);
    if (question.type !== TYPE.SRV) return writeAnswer(question, RCODE.NOERROR);
    markServed(entry);
    return writeAnswer(question, RCODE.NOERROR, entry.records);
  }

  function answerAddress(question: Question): Buffer {
    const address = addressOf(question.name.slice(0, -ADDRESSES.length - 1));
    if (!address) return writeAnswer(question, RCODE.NXDOMAIN);
    const type = address.length === 4 ? TYPE.A : TYPE.AAAA;
    return writeAnswer(question, RCODE.NOERROR, question.type === type ? [{ type, address }] : []);
  }

  function markServed(entry: Published): void {
    entry.served = true;
    for (const wake of entry.waiters.splice(0)) wake();
  }

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    // DNS over TCP (RFC 1035 §4.2.2): each message behind its 2-byte length.
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + message.length);
        const reply = answer(message);
        if (!reply) return void socket.destroy();
        const length = Buffer.alloc(2);
        length.writeUInt16BE(reply.length);
        socket.write(Buffer.concat([length, reply]));
      }
    });
  });
  const listen = (at: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(at, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  await listen(port).catch((error: NodeJS.ErrnoException) => {
    if (port === 0 || error.code !== "EADDRINUSE") throw error;
    return listen(0);
  });
  const bound = (server.address() as net.AddressInfo).port;

  return {
    address: `tcp/${host.includes(":") ? `[${host}]` : host}:${bound}`,
    port: bound,

    publish(apps) {
      const changed: string[] = [];
      const proxied = new Set<string>();
      for (const [slug, target] of apps) {
        // A watched target goes through Slipway's router: Caddy never looks it up.
        if (target.kind !== "proxy" || target.watched) continue;
        proxied.add(slug);
        const records = srvRecords(target.upstreams);
        const key = JSON.stringify(records);
        const old = published.get(slug);
        if (old?.key === key) continue;
        published.set(slug, { records, key, changedAt: Date.now(), served: false, waiters: old?.waiters ?? [] });
        changed.push(slug);
      }
      for (const [slug, entry] of published) {
        if (proxied.has(slug)) continue;
        // Its route no longer looks it up (the configuration load that changed its kind follows).
        published.delete(slug);
        markServed(entry);
      }
      return changed;
    },

    async settled(slugs) {
      await Promise.all(slugs.map((slug) => caughtUp(published.get(slug))));
    },

    async close() {
      for (const entry of published.values()) markServed(entry);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  function caughtUp(entry: Published | undefined): Promise<void> | undefined {
    if (!entry || entry.served) return;
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(wake, entry.changedAt + REFRESH_MS + MARGIN_MS - Date.now());
      entry.waiters.push(wake);
    });
  }
}

function srvRecords(upstreams: Upstreams): DnsRecord[] {
  const sorted = [...upstreams].sort((a, b) => a.host.localeCompare(b.host) || a.port - b.port);
  return sorted.map((upstream) => ({ type: TYPE.SRV, priority: 0, weight: 1, port: upstream.port, target: addressName(upstream.host) }));
}

/** The name whose A or AAAA record is `host` (an IP address: runtimes give instances as such). */
export function addressName(host: string): string {
  return `${ipBytes(host).toString("hex")}.${ADDRESSES}.`;
}

function addressOf(label: string): Buffer | null {
  if (!/^([0-9a-f]{8}|[0-9a-f]{32})$/.test(label)) return null;
  return Buffer.from(label, "hex");
}

function ipBytes(host: string): Buffer {
  if (net.isIPv4(host)) return Buffer.from(host.split(".").map(Number));
  if (!net.isIPv6(host)) throw new Error(`an upstream's host must be an IP address, not ${JSON.stringify(host)}`);
  // An IPv4 tail (::ffff:1.2.3.4) becomes its two groups; "::" stands for as many zero groups as are missing.
  const v4Tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  const text = v4Tail ? host.slice(0, v4Tail.index) + ipBytes(v4Tail[0]).toString("hex").replace(/(.{4})(.{4})/, "$1:$2") : host;
  const [head, tail] = text.split("::");
  const groups = (part: string | undefined) => (part ? part.split(":") : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array<string>(missing).fill("0"), ...groups(tail)];
  return Buffer.from(all.map((group) => group.padStart(4, "0")).join(""), "hex");
}
