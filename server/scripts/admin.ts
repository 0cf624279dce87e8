// Out-of-band administration for operators with shell access to the server (like `gitea admin`):
//   npm run admin -- promote <email>   make the account ADMIN (and ACTIVE)
//   npm run admin -- demote <email>    make the account USER again
//   npm run admin -- cluster           the instances on this database, the leader, its lease, the queue
// It reads the same configuration (DATABASE_URL, REDIS_URL, …) as the server and changes the account
// through the same services; with REDIS_URL, running servers see the change at once, else within 30 s.
import { ConfigError, loadConfig, type Config } from "../config.ts";
import { createDb } from "../db/client.ts";
import { createPlatform } from "../platform/index.ts";
import { createClusterService, type ClusterView } from "../services/cluster.ts";

const USAGE = "usage: npm run admin -- promote <email> | demote <email> | cluster";
const quiet = { info() {}, warn() {}, error: (details: object, message: string) => console.error(message, details) };

async function main(argv: string[]): Promise<number> {
  const [command, email, ...rest] = argv;
  const account = (command === "promote" || command === "demote") && email && !rest.length;
  if (!account && !(command === "cluster" && !email)) {
    console.error(USAGE);
    return 64; // EX_USAGE
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 78; // EX_CONFIG
  }
  if (command === "cluster") return showCluster(config);
  const platform = await createPlatform(config, quiet);
  try {
    const user = await platform.services.accounts.setRole(email, command === "promote" ? "ADMIN" : "USER");
    if (!user) {
      console.error(`No account uses the email ${email}. Sign up first, then run this again.`);
      return 1;
    }
    console.log(`${user.email} (${user.name}) is now ${user.role === "ADMIN" ? "an administrator" : "a user"}.`);
    return 0;
  } finally {
    await platform.close();
  }
}

async function showCluster(config: Config): Promise<number> {
  const db = createDb(config.databaseUrl);
  try {
    console.log(describeCluster(await createClusterService({ db, leaseMs: config.clusterLeaseMs, now: () => new Date() }).view(), new Date()));
    return 0;
  } finally {
    await db.$disconnect();
  }
}

export function describeCluster(view: ClusterView, now: Date): string {
  const ago = (at: Date) => `${Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000))} s ago`;
  const lease = view.lease ? `renewed ${ago(view.lease.renewedAt)}, ${view.leader ? "runs out" : "ran out"} at ${view.lease.expiresAt.toISOString()}` : "never taken";
  const lines = [`Leader: ${view.leader ?? "none (no instance holds a live lease: cron and scheduled backups wait)"}`, `Lease:  ${lease}`, `Queue:  ${view.queue.pending} deployment(s) waiting, ${view.queue.running} being built or started`, "", "Instances:"];
  if (!view.instances.length) lines.push("  none seen lately");
  for (const i of view.instances) lines.push(`  ${i.leader ? "*" : " "} ${i.id}  ${i.address}  ${i.runtime}  started ${i.startedAt.toISOString()}  seen ${ago(i.lastSeenAt)}`);
  return lines.join("\n");
}

if (process.argv[1]?.endsWith("admin.ts")) process.exitCode = await main(process.argv.slice(2));
