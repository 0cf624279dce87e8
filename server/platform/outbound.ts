// The platform's own outbound connections (webhook deliveries, log drains) go to addresses users name, so a user
// could aim them at the platform's network: its loopback, a cloud metadata address, a private service. Every such
// connection resolves its host through this guard, which refuses loopback, link-local, private and reserved
// addresses unless the operator lists them (OUTBOUND_ALLOWED_HOSTS), and pins the connection to the address it
// checked: a name that resolved to a public address when checked cannot rebind to a private one when connecting.
import dns from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { InvalidRequestError } from "../errors.ts";

/** Ranges no user-named connection reaches by default (IANA special-purpose registries, abridged to what routes). */
const REFUSED_V4 = [
  ["0.0.0.0", 8, "this network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (carrier-grade NAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
] as const;
const REFUSED_V6 = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["::", 96, "IPv4-compatible"],
  ["64:ff9b::", 96, "NAT64"],
  ["64:ff9b:1::", 48, "NAT64 (local use)"],
  ["2001::", 32, "Teredo"],
  ["2002::", 16, "6to4"],
  ["fc00::", 7, "private (unique local)"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
] as const;

/** OUTBOUND_ALLOWED_HOSTS, parsed: host names (exact, lower case) and address ranges the operator lets through. */
export interface OutboundAllowList {
  hosts: string[];
  /** "10.0.0.5", "10.0.0.0/8", "fd00::/8". */
  ranges: string[];
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

const REFUSED = [...REFUSED_V4.map((r) => [...r, "ipv4"] as const), ...REFUSED_V6.map((r) => [...r, "ipv6"] as const)].map(([network, prefix, name, type]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return { list, name };
});

/** Why a connection to ADDRESS is refused, or null when it may go (IPv4-mapped IPv6 addresses match the IPv4 ranges). */
function refusedRange(address: string): string | null {
  const type = isIP(address) === 6 ? "ipv6" : "ipv4";
  return REFUSED.find(({ list }) => list.check(address, type))?.name ?? null;
}

export class OutboundRefusedError extends Error {}

export class OutboundGuard {
  private readonly allowedHosts: Set<string>;
  private readonly allowedRanges = new BlockList();

  constructor(
    allow: OutboundAllowList = { hosts: [], ranges: [] },
    private readonly resolver: Resolver = systemResolver,
  ) {
    this.allowedHosts = new Set(allow.hosts.map((h) => h.toLowerCase()));
    for (const range of allow.ranges) {
      const [address, prefix] = range.split("/");
      const type = isIP(address) === 6 ? "ipv6" : "ipv4";
      if (prefix === undefined) this.allowedRanges.addAddress(address, type);
      else this.allowedRanges.addSubnet(address, Number(prefix), type);
    }
  }

  /**
   * The address to connect to for HOST: every address it resolves to must be allowed (one private answer among
   * public ones refuses it: a client may pick any of them). Throws OutboundRefusedError saying why.
   */
  async resolve(host: string): Promise<{ address: string; family: 4 | 6 }> {
    const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
    const literal = isIP(bare);
    let answers: Array<{ address: string; family: number }>;
    if (literal) answers = [{ address: bare, family: literal }];
    else {
      try {
        answers = await this.resolver(bare);
      } catch {
        throw new OutboundRefusedError(`${host} does not resolve`);
      }
      if (answers.length === 0) throw new OutboundRefusedError(`${host} does not resolve`);
    }
    if (!this.allowedHosts.has(bare)) {
      for (const { address, family } of answers) {
        const refused = refusedRange(address);
        if (refused && !this.allowedRanges.check(address, family === 6 ? "ipv6" : "ipv4")) {
          const where = literal ? address : `${host} resolves to ${address}`;
          throw new OutboundRefusedError(
            `${where}, a ${refused} address: Slipway sends nothing to loopback, link-local or private addresses unless the operator lists the host in OUTBOUND_ALLOWED_HOSTS`,
          );
        }
      }
    }
    const first = answers[0];
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  /** A `lookup` for net/tls/http(s) connections: the guard's check, at connection time, pinned to what it checked. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      ({ address, family }) => {
        if (typeof options === "object" && options?.all) (callback as unknown as (e: null, all: { address: string; family: number }[]) => void)(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (error: Error) => callback(Object.assign(error, { code: "EOUTBOUNDREFUSED" }), "", 0),
    );
  };

  /**
   * Checks a user-given URL when it is saved: its scheme among SCHEMES, no credentials in it, and a host the
   * guard lets through now. Each connection checks again (rebinding). A 400 naming FIELD.
   */
  async checkUrl(value: string, field: string, schemes: string[]): Promise<URL> {
    const invalid = (message: string) => new InvalidRequestError(`${field}: ${message}`, { [field]: message });
    const expected = `Expected ${schemes.map((s) => `${s}//…`).join(" or ")}.`;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw invalid(`not a URL. ${expected}`);
    }
    if (!schemes.includes(url.protocol)) {
      throw invalid(`${url.protocol}// is not supported. ${expected}`);
    }
    if (url.username || url.password) {
      throw invalid("a URL with credentials in it is refused (they would show wherever it is listed): put a token in its path instead.");
    }
    if (!url.hostname) throw invalid("the URL names no host.");
    try {
      await this.resolve(url.hostname);
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw invalid(`${error.message}.`);
      throw error;
    }
    return url;
  }
}

/** OUTBOUND_ALLOWED_HOSTS: comma-separated host names, addresses or CIDR ranges; null when an entry is none of them. */
export function parseAllowList(value: string): OutboundAllowList | { invalid: string } {
  const list: OutboundAllowList = { hosts: [], ranges: [] };
  for (const entry of value.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [address, prefix, extra] = entry.split("/");
    const family = isIP(address.replace(/^\[|\]$/g, ""));
    if (family && extra === undefined) {
      const max = family === 4 ? 32 : 128;
      if (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= max)) return { invalid: entry };
      list.ranges.push(entry.replace(/^\[|\]/g, ""));
    } else if (/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(entry)) {
      list.hosts.push(entry.toLowerCase());
    } else return { invalid: entry };
  }
  return list;
}
