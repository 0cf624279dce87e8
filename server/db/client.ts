import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "../generated/sqlite/client.ts";
import { PrismaClient as PgClient } from "../generated/postgresql/client.ts";

// Both clients are generated from the same models; the SQLite one is the canonical TypeScript type.
export type Db = InstanceType<typeof SqliteClient>;

/** Models whose rows feed cached reads (sessions, tokens, OAuth clients, accounts, usage): writes to them are reported. */
const WATCHED_MODELS = ["user", "quota", "session", "oAuthToken", "oAuthClient", "resource", "file"] as const;
/** Apps feed only the usage counts (and instances): their status changes (a crash loop) must not clear every cached session. */
const COUNTED_MODELS = ["app"] as const;
const READS = new Set(["findUnique", "findUniqueOrThrow", "findFirst", "findFirstOrThrow", "findMany", "count", "aggregate", "groupBy"]);
const COUNT_CHANGES = new Set(["create", "createMany", "createManyAndReturn", "delete", "deleteMany", "upsert"]);

/** A scale (App.instances) changes Quota.usage.instances. */
function changesInstances(operation: string, args: unknown): boolean {
  return operation.startsWith("update") && (args as { data?: { instances?: unknown } } | undefined)?.data?.instances !== undefined;
}

export function createDb(databaseUrl: string, onWrite: () => void = () => {}): Db {
  const client = databaseUrl.startsWith("file:")
    ? new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: databaseUrl, timeout: 10_000 }) })
    : (new PgClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) }) as unknown as Db);
  const reportWrites = {
    async $allOperations({ operation, args, query }: { operation: string; args: unknown; query: (args: unknown) => Promise<unknown> }) {
      const result = await query(args);
      if (!READS.has(operation)) onWrite();
      return result;
    },
  };
  const reportCountChanges = {
    async $allOperations({ operation, args, query }: { operation: string; args: unknown; query: (args: unknown) => Promise<unknown> }) {
      const result = await query(args);
      if (COUNT_CHANGES.has(operation) || changesInstances(operation, args)) onWrite();
      return result;
    },
  };
  const query = Object.fromEntries([
    ...WATCHED_MODELS.map((model) => [model, reportWrites] as const),
    ...COUNTED_MODELS.map((model) => [model, reportCountChanges] as const),
  ]);
  // The extension only observes queries, so the client keeps its exact type.
  const extend = client.$extends.bind(client) as unknown as (extension: { query: typeof query }) => unknown;
  return extend({ query }) as Db;
}
