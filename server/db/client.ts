import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "../generated/sqlite/client.ts";
import { PrismaClient as PgClient } from "../generated/postgresql/client.ts";

// Both clients are generated from the same models; the SQLite one is the canonical TypeScript type.
export type Db = InstanceType<typeof SqliteClient>;

export function createDb(databaseUrl: string): Db {
  if (databaseUrl.startsWith("file:")) {
    return new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: databaseUrl, timeout: 10_000 }) });
  }
  return new PgClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) }) as unknown as Db;
}
