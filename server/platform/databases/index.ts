// The database provisioners this platform offers, chosen once from the configuration: SQLite always, and
// PostgreSQL when POSTGRES_PROVISION_URL is set (then the default type).
import { postgresEndpoint } from "../runtime/index.ts";
import { createPostgresProvisioner } from "./postgres.ts";
import { createSqliteProvisioner, type SqliteHost } from "./sqlite.ts";
import type { DatabaseProvisioner, DatabaseType } from "./types.ts";

export type * from "./types.ts";

export interface Provisioners {
  /** The type a database gets when none is asked for. */
  readonly defaultType: DatabaseType;
  /** null when this platform does not offer the type. */
  of(type: DatabaseType): DatabaseProvisioner | null;
  close(): Promise<void>;
}

export interface ProvisionerHost extends SqliteHost {
  appEndpoint(server: { host: string; port: number }): { host: string; port: number };
}

export async function createProvisioners(config: { postgresProvisionUrl?: string }, host: ProvisionerHost): Promise<Provisioners> {
  const sqlite = createSqliteProvisioner(host);
  const postgres = config.postgresProvisionUrl
    ? createPostgresProvisioner({ url: config.postgresProvisionUrl, server: await postgresEndpoint(config.postgresProvisionUrl), appEndpoint: host.appEndpoint })
    : null;
  return {
    defaultType: postgres ? "postgres" : "sqlite",
    of: (type) => (type === "sqlite" ? sqlite : type === "postgres" ? postgres : null),
    close: async () => {
      await postgres?.close();
    },
  };
}
