// Swarm tasks reach the outside through the node's docker_gwbridge, and their ports are published on every
// address of their node: without this table a task could reach another app's task through the node
// (<node address>:<its published port>, DNATed back into docker_gwbridge) and the node's own services.
// Replies to connections the platform opened stay allowed. The one exception, with POSTGRES_PROVISION_URL: the
// app databases' server at SERVICE_ADDRESS:<port> (DNAT with a conntrack mark, as the docker driver does). Set
// on the node the platform runs on; the README says what the other nodes need.
import fs from "node:fs/promises";
import { SERVICE_ADDRESS, type ForwardedService } from "../docker/network.ts";
import { exec } from "../local/exec.ts";

export const SWARM_TABLE = "slipway_swarm";
const GWBRIDGE = "docker_gwbridge";
const FORWARDED_MARK = "0x51590003";

export function swarmFirewallRules(service?: ForwardedService): string {
  if (service && !/^\d{1,3}(\.\d{1,3}){3}$/.test(service.host)) throw new Error(`a forwarded service needs an IPv4 address, not ${service.host}`);
  const dnat = service
    ? `  chain prerouting {
    type nat hook prerouting priority dstnat - 10; policy accept;
    iifname "${GWBRIDGE}" ip daddr ${SERVICE_ADDRESS} tcp dport ${Number(service.port)} ct mark set ${FORWARDED_MARK} dnat ip to ${service.host}:${Number(service.port)}
  }
`
    : "";
  const forwarded = `iifname "${GWBRIDGE}" meta l4proto tcp ct status dnat ct mark ${FORWARDED_MARK} accept`;
  return `table inet ${SWARM_TABLE} {}
delete table inet ${SWARM_TABLE}
table inet ${SWARM_TABLE} {
${dnat}  chain input {
    type filter hook input priority filter - 10; policy accept;
    iifname "${GWBRIDGE}" ct state established,related accept
    ${forwarded}
    iifname "${GWBRIDGE}" counter drop
  }
  chain forward {
    type filter hook forward priority filter - 10; policy accept;
    iifname "${GWBRIDGE}" ct state established,related accept
    ${forwarded}
    iifname "${GWBRIDGE}" oifname "${GWBRIDGE}" counter drop
    iifname "${GWBRIDGE}" ip daddr { 10.202.0.0/16, 169.254.0.0/16, 127.0.0.0/8 } counter drop
    iifname "${GWBRIDGE}" ip daddr 10.201.0.0/16 counter drop
    iifname "${GWBRIDGE}" meta nfproto ipv6 counter drop
  }
}
`;
}

/** Sets the table (idempotent); rejects with nft's message when it cannot (not root, no nftables). */
export async function setupSwarmFirewall(service?: ForwardedService): Promise<void> {
  await exec(["/usr/sbin/nft", "-f", "-"], { input: swarmFirewallRules(service) });
  // The forwarded service may be on 127.0.0.1: DNAT to loopback needs this on the bridge (its input is dropped above).
  if (service) await fs.writeFile(`/proc/sys/net/ipv4/conf/${GWBRIDGE}/route_localnet`, "1").catch(() => {});
}
