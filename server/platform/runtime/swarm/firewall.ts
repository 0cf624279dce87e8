// Swarm tasks reach the outside through the node's docker_gwbridge, and their ports are published on every
// address of their node: without this table a task could reach another app's task through the node
// (<node address>:<its published port>, DNATed back into docker_gwbridge) and the node's own services.
// Replies to connections the platform opened stay allowed. Set on the node the platform runs on; the README
// gives the same table for the other nodes.
import { exec } from "../local/exec.ts";

export const SWARM_TABLE = "slipway_swarm";
const GWBRIDGE = '"docker_gwbridge"';

export function swarmFirewallRules(): string {
  return `table inet ${SWARM_TABLE} {}
delete table inet ${SWARM_TABLE}
table inet ${SWARM_TABLE} {
  chain input {
    type filter hook input priority filter - 10; policy accept;
    iifname ${GWBRIDGE} ct state established,related accept
    iifname ${GWBRIDGE} counter drop
  }
  chain forward {
    type filter hook forward priority filter - 10; policy accept;
    iifname ${GWBRIDGE} ct state established,related accept
    iifname ${GWBRIDGE} oifname ${GWBRIDGE} counter drop
    iifname ${GWBRIDGE} ip daddr { 169.254.0.0/16, 127.0.0.0/8 } counter drop
    iifname ${GWBRIDGE} meta nfproto ipv6 counter drop
  }
}
`;
}

/** Sets the table (idempotent); rejects with nft's message when it cannot (not root, no nftables). */
export async function setupSwarmFirewall(): Promise<void> {
  await exec(["/usr/sbin/nft", "-f", "-"], { input: swarmFirewallRules() });
}
