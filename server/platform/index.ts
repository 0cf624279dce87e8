// The process-wide dependencies, created once at boot and shared by every transport.
import type { Config } from "../config.ts";
import { createDb, type Db } from "../db/client.ts";
import { createServices, type Services } from "../services/index.ts";
import { createPubSub, type PubSub } from "./pubsub/index.ts";
import { createCounterStore, type CounterStore } from "./ratelimit/index.ts";

export interface Platform {
  config: Config;
  db: Db;
  counters: CounterStore;
  pubsub: PubSub;
  services: Services;
  close(): Promise<void>;
}

export function createPlatform(config: Config): Platform {
  const db = createDb(config.databaseUrl);
  const counters = createCounterStore(config.redisUrl, config.redisKeyPrefix);
  const pubsub = createPubSub(config.redisUrl, config.redisKeyPrefix);
  const services = createServices({ db, config, counters, pubsub });
  return {
    config,
    db,
    counters,
    pubsub,
    services,
    async close() {
      await Promise.all([counters.close(), pubsub.close()]);
      await db.$disconnect();
    },
  };
}
