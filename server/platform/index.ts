// The process-wide dependencies, created once at boot and shared by every transport.
import type { Config } from "../config.ts";
import { createDb, type Db } from "../db/client.ts";
import { createServices, type Services } from "../services/index.ts";
import { createCounterStore, type CounterStore } from "./ratelimit/index.ts";

export interface Platform {
  config: Config;
  db: Db;
  counters: CounterStore;
  services: Services;
  close(): Promise<void>;
}

export function createPlatform(config: Config): Platform {
  const db = createDb(config.databaseUrl);
  const counters = createCounterStore(config.redisUrl);
  const services = createServices({ db, config, counters });
  return {
    config,
    db,
    counters,
    services,
    async close() {
      await counters.close();
      await db.$disconnect();
    },
  };
}
