// A network namespace per app, joined to the host by a veth pair (host side `swh<slot>` 10.201.x.1/30, app side
// eth0 10.201.x.2/30), created once per app and shared by its instances. One host-wide nftables table,
// the same for every platform on the machine (replaced atomically, so concurrent platforms agree):
//   - input: from an app's veth only replies to connections the platform opened: no host service at all
//     (the platform's port, PostgreSQL, Redis, anything bound on 0.0.0.0 or the veth address);
//   - forward: nothing enters an app unless it answers the app's own connection (no app reaches another);
//     an app's packets to the app range, link-local (cloud metadata) or loopback addresses are dropped;
//   - nat: whatever an app sends to the outside leaves masqueraded, so builds reach the npm registry and
//     apps external APIs (with net.ipv4.ip_forward on).
// A blackhole route for the whole range makes an address of no app fail at once (here an unrouted address
// would otherwise reach a proxy that accepts any TCP connection).
// Docker on the same host sets the iptables FORWARD policy to DROP, which would cut the apps' outgoing traffic
// (iptables and nftables chains are all traversed: an accept here does not override a drop there). Where Docker's
// DOCKER-USER chain exists, two rules in it let the apps' forwarded packets through to this table's own rules.
// One exception to "no host service": the PostgreSQL server that app databases live on (POSTGRES_PROVISION_URL).
// Apps dial it at SERVICE_ADDRESS (the last /30 of the range, never an app's); a second table, written only by a
// platform that provisions databases, forwards that one TCP port to the server (DNAT, with a conntrack mark),
// and the input chain accepts only connections carrying that mark. Every other host port stays refused.
import fs from "node:fs/promises";
import { exec, execIgnoring } from "./exec.ts";

const IP = "/usr/sbin/ip";
const NFT = "/usr/sbin/nft";
const IPTABLES = "/usr/sbin/iptables";
export const TABLE = "slipway";
export const VETH_PREFIX = "swh";

export interface AppNetwork {
  netns: string;
  hostVeth: string;
  hostAddress: string;
  appAddress: string;
}

/** 10.201.0.0/16 holds 16384 /30 pairs: slot n is 10.201.0.0 + 4n; the last pair is kept for SERVICE_ADDRESS. */
export const APP_RANGE = { base: (10 << 24) | (201 << 16), prefix: 16, slots: 16383 };

/** Where apps reach a forwarded platform service (the PostgreSQL server of their databases). */
export const SERVICE_ADDRESS = "10.201.255.253";
export const SERVICES_TABLE = "slipway_services";
/** The conntrack mark of a connection forwarded by the services table (the input chain accepts only those). */
const FORWARDED_MARK = "0x51590001";

export interface ForwardedService {
  /** An IPv4 address (127.0.0.1 for a server on this machine). */
  host: string;
  port: number;
}

export function appNetwork(slot: number): AppNetwork {
  if (slot < 0 || slot >= APP_RANGE.slots) throw new Error(`slot ${slot} is outside the app address range`);
  const base = APP_RANGE.base + slot * 4;
  return { netns: `slipway-${slot}`, hostVeth: `${VETH_PREFIX}${slot}`, hostAddress: ipv4(base + 1), appAddress: ipv4(base + 2) };
}

function ipv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join(".");
}

const rangeCidr = () => `${ipv4(APP_RANGE.base)}/${APP_RANGE.prefix}`;

export function firewallRules(): string {
  const apps = `"${VETH_PREFIX}*"`;
  return `table inet ${TABLE} {}
delete table inet ${TABLE}
table inet ${TABLE} {
  chain input {
    type filter hook input priority filter - 10; policy accept;
    iifname ${apps} ct state established,related accept
    iifname ${apps} meta l4proto tcp ct status dnat ct mark ${FORWARDED_MARK} accept
    iifname ${apps} counter drop
  }
  chain forward {
    type filter hook forward priority filter - 10; policy accept;
    oifname ${apps} ct state established,related accept
    oifname ${apps} counter drop
    iifname ${apps} meta l4proto tcp ct status dnat ct mark ${FORWARDED_MARK} accept
    iifname ${apps} ip daddr { ${rangeCidr()}, 169.254.0.0/16, 127.0.0.0/8 } counter drop
    iifname ${apps} meta nfproto ipv6 counter drop
  }
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    ip saddr ${rangeCidr()} oifname != ${apps} masquerade
  }
}
`;
}

/** The services table: SERVICE_ADDRESS:port forwarded to the one service, TCP only. */
export function serviceRules(service: ForwardedService): string {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(service.host)) throw new Error(`a forwarded service needs an IPv4 address, not ${service.host}`);
  if (!Number.isInteger(service.port) || service.port < 1 || service.port > 65535) throw new Error(`bad port ${service.port}`);
  return `table inet ${SERVICES_TABLE} {}
delete table inet ${SERVICES_TABLE}
table inet ${SERVICES_TABLE} {
  chain prerouting {
    type nat hook prerouting priority dstnat; policy accept;
    iifname "${VETH_PREFIX}*" ip daddr ${SERVICE_ADDRESS} tcp dport ${service.port} ct mark set ${FORWARDED_MARK} dnat ip to ${service.host}:${service.port}
  }
}
`;
}

/** Forwards SERVICE_ADDRESS:port to the service (host-wide: the last platform to set it wins). */
export async function setupServiceForward(service: ForwardedService): Promise<void> {
  await exec([NFT, "-f", "-"], { input: serviceRules(service) });
}

/** What every app network relies on; idempotent, safe to run from several platforms at once. */
export async function setupHostNetwork(): Promise<void> {
  await exec([NFT, "-f", "-"], { input: firewallRules() });
  await execIgnoring([IP, "route", "add", "blackhole", rangeCidr()], /File exists/);
  await fs.writeFile("/proc/sys/net/ipv4/ip_forward", "1");
  await passDockerForwardPolicy();
}

/** The DOCKER-USER rules that keep Docker's FORWARD policy from dropping the apps' traffic; nothing without Docker. */
export const DOCKER_USER_RULES = [
  ["-i", `${VETH_PREFIX}+`, "-j", "ACCEPT"],
  ["-o", `${VETH_PREFIX}+`, "-m", "conntrack", "--ctstate", "RELATED,ESTABLISHED", "-j", "ACCEPT"],
];

export async function passDockerForwardPolicy(): Promise<void> {
  const hasChain = await exec([IPTABLES, "-w", "-n", "-L", "DOCKER-USER"]).then(
    () => true,
    () => false,
  );
  if (!hasChain) return;
  for (const rule of DOCKER_USER_RULES) {
    const present = await exec([IPTABLES, "-w", "-C", "DOCKER-USER", ...rule]).then(
      () => true,
      () => false,
    );
    if (!present) await exec([IPTABLES, "-w", "-I", "DOCKER-USER", ...rule]);
  }
}

export async function createAppNetwork(net: AppNetwork): Promise<void> {
  await removeAppNetwork(net); // a leftover of this slot (whose claim was given up) is stale by definition
  await passDockerForwardPolicy(); // Docker may have started since the platform did
  const inApp = (...args: string[]) => exec([IP, "-n", net.netns, ...args]);
  await exec([IP, "netns", "add", net.netns]);
  try {
    await exec([IP, "link", "add", net.hostVeth, "type", "veth", "peer", "name", "eth0", "netns", net.netns]);
    await fs.writeFile(`/proc/sys/net/ipv6/conf/${net.hostVeth}/disable_ipv6`, "1").catch(() => {});
    // A forwarded service on 127.0.0.1 (DNAT to loopback) needs this on the app's veth only, never host-wide;
    // the input and forward chains still drop every other packet of the app to a loopback address.
    await fs.writeFile(`/proc/sys/net/ipv4/conf/${net.hostVeth}/route_localnet`, "1");
    // The app side first, the host side up last: a probe in between would leave an incomplete ARP entry (~1 s).
    await inApp("addr", "add", `${net.appAddress}/30`, "dev", "eth0");
    await inApp("link", "set", "lo", "up");
    await inApp("link", "set", "eth0", "up");
    await inApp("route", "add", "default", "via", net.hostAddress);
    await exec([IP, "addr", "add", `${net.hostAddress}/30`, "dev", net.hostVeth]);
    await exec([IP, "link", "set", net.hostVeth, "up"]);
  } catch (error) {
    await removeAppNetwork(net);
    throw error;
  }
}

export async function removeAppNetwork(net: AppNetwork): Promise<void> {
  await execIgnoring([IP, "link", "del", net.hostVeth], /Cannot find device|does not exist|No such device/);
  await execIgnoring([IP, "netns", "del", net.netns], /No such file|Cannot remove namespace file/);
}
