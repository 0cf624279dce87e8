// One bridge network per app, `slipway-<appKey>`, in 10.202.0.0/16 (a /24 each), with inter-container traffic off
// (ICC) and a bridge named swd<hash> so one nftables table of ours can match every app bridge. Docker's own
// iptables rules stay as they are (outgoing masquerade, isolation between networks); our table adds, host-wide:
//   - input: from an app bridge only replies to connections the host opened (the router's): no host service at all
//     (the platform's port, Redis, PostgreSQL, sshd, the engine's TCP port), whatever host address is dialled;
//   - forward: nothing enters an app bridge unless it answers the app's own connection; an app's packets to the app
//     ranges (docker's and the local driver's), link-local (cloud metadata) or loopback addresses are dropped; no IPv6;
//   - the one exception, as with the local driver: the PostgreSQL server of app databases, dialled at
//     SERVICE_ADDRESS:port and forwarded there (DNAT with a conntrack mark the input chain accepts).
// PostgreSQL sees app connections from 10.202.0.0/16 (pg_hba.conf needs a line for it, as for 10.201.0.0/16).
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import { type Docker, LABEL, isNotFound } from "./client.ts";
import { exec } from "../local/exec.ts";

const NFT = "/usr/sbin/nft";
export const TABLE = "slipway_docker";
export const SERVICES_TABLE = "slipway_docker_services";
export const BRIDGE_PREFIX = "swd";
export const DOCKER_APP_RANGE = "10.202.0.0/16";
/** Where containers reach the forwarded service: an address of no network, routed out through the gateway. */
export const SERVICE_ADDRESS = "10.202.255.253";
const FORWARDED_MARK = "0x51590002";
const BLOCKED = [DOCKER_APP_RANGE, "169.254.0.0/16", "127.0.0.0/8"];
/** The local runtime's range, in a rule of its own: in one set nft would merge it with ours into one interval. */
const LOCAL_RANGE = "10.201.0.0/16";

export interface ForwardedService {
  host: string;
  port: number;
}

export interface AppNetwork {
  name: string;
  id: string;
  bridge: string;
  gateway: string;
}

export function networkName(appKey: string): string {
  return `slipway-${appKey}`;
}

export function bridgeName(platform: string, appKey: string): string {
  return BRIDGE_PREFIX + createHash("sha256").update(`${platform}/${appKey}`).digest("hex").slice(0, 12);
}

export function firewallRules(): string {
  const bridges = `"${BRIDGE_PREFIX}*"`;
  return `table inet ${TABLE} {}
delete table inet ${TABLE}
table inet ${TABLE} {
  chain input {
    type filter hook input priority filter - 10; policy accept;
    iifname ${bridges} ct state established,related accept
    iifname ${bridges} meta l4proto tcp ct status dnat ct mark ${FORWARDED_MARK} accept
    iifname ${bridges} counter drop
  }
  chain forward {
    type filter hook forward priority filter - 10; policy accept;
    oifname ${bridges} ct state established,related accept
    oifname ${bridges} counter drop
    iifname ${bridges} meta l4proto tcp ct status dnat ct mark ${FORWARDED_MARK} accept
    iifname ${bridges} ip daddr { ${BLOCKED.join(", ")} } counter drop
    iifname ${bridges} ip daddr ${LOCAL_RANGE} counter drop
    iifname ${bridges} meta nfproto ipv6 counter drop
  }
}
`;
}

export function serviceRules(service: ForwardedService): string {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(service.host)) throw new Error(`a forwarded service needs an IPv4 address, not ${service.host}`);
  if (!Number.isInteger(service.port) || service.port < 1 || service.port > 65535) throw new Error(`bad port ${service.port}`);
  return `table inet ${SERVICES_TABLE} {}
delete table inet ${SERVICES_TABLE}
table inet ${SERVICES_TABLE} {
  chain prerouting {
    type nat hook prerouting priority dstnat - 10; policy accept;
    iifname "${BRIDGE_PREFIX}*" ip daddr ${SERVICE_ADDRESS} tcp dport ${service.port} ct mark set ${FORWARDED_MARK} dnat ip to ${service.host}:${service.port}
  }
}
`;
}

/** Sets (again: another platform may have rewritten them) the host-wide tables; idempotent. */
export async function setupFirewall(service?: ForwardedService): Promise<void> {
  await exec([NFT, "-f", "-"], { input: firewallRules() });
  if (service) await exec([NFT, "-f", "-"], { input: serviceRules(service) });
}

/** The app's network, created on its first container; a /24 of the range no other network holds. */
export async function ensureAppNetwork(docker: Docker, platform: string, appKey: string): Promise<AppNetwork> {
  const name = networkName(appKey);
  const existing = await inspectNetwork(docker, name);
  if (existing) return existing;
  const used = new Set<string>();
  for (const n of await docker.listNetworks()) for (const c of n.IPAM?.Config ?? []) if (c.Subnet) used.add(c.Subnet);
  for (let third = 0; third < 255; third++) {
    const subnet = `10.202.${third}.0/24`;
    if (used.has(subnet)) continue;
    try {
      await docker.createNetwork({
        Name: name,
        Driver: "bridge",
        CheckDuplicate: true,
        EnableIPv6: false,
        IPAM: { Driver: "default", Config: [{ Subnet: subnet, Gateway: `10.202.${third}.1` }] },
        Options: { "com.docker.network.bridge.name": bridgeName(platform, appKey), "com.docker.network.bridge.enable_icc": "false" },
        Labels: { [LABEL.platform]: platform, [LABEL.app]: appKey },
      });
    } catch (error) {
      const message = String((error as Error).message);
      if (/overlap/i.test(message)) continue; // another platform took it meanwhile
      if (/already exists/i.test(message)) break;
      throw error;
    }
    break;
  }
  const network = await inspectNetwork(docker, name);
  if (!network) throw new Error(`could not create the docker network ${name}: no free /24 left in ${DOCKER_APP_RANGE}`);
  // The forwarded service may be on 127.0.0.1: DNAT to loopback needs this on the app's bridge only.
  await fs.writeFile(`/proc/sys/net/ipv4/conf/${network.bridge}/route_localnet`, "1").catch(() => {});
  return network;
}

async function inspectNetwork(docker: Docker, name: string): Promise<AppNetwork | null> {
  try {
    const info = await docker.getNetwork(name).inspect();
    return {
      name,
      id: info.Id,
      bridge: info.Options?.["com.docker.network.bridge.name"] ?? "",
      gateway: info.IPAM?.Config?.[0]?.Gateway ?? "",
    };
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

export async function removeNetwork(docker: Docker, nameOrId: string): Promise<void> {
  await docker
    .getNetwork(nameOrId)
    .remove()
    .catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
}
