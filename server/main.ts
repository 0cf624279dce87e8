import { ConfigError, loadConfig } from "./config.ts";
import { buildSlipway } from "./app.ts";
import { ClusterTopologyError } from "./platform/cluster/index.ts";

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  // A leader that could not renew its lease in time exits at once, its apps left running: another instance leads
  // them now, and a restart of this one joins as a follower (the way Kubernetes' controllers give up a lost lease).
  const slipway = await buildSlipway(config, { onLostLeadership: () => process.exit(1) });
  try {
    await slipway.listen();
  } catch (error) {
    if (!(error instanceof ClusterTopologyError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  slipway.app.log.info(`Slipway is serving ${config.publicUrl} (database: ${config.databaseProvider})`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void slipway.close().then(() => process.exit(0)));
  }
}

await main();
