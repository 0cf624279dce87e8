#!/usr/bin/env node
// Fails when prisma/models.prisma changed without a migration, on both providers.
// SQLite replays into a scratch file; PostgreSQL into a shadow database on CHECK_POSTGRES_URL.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-dbcheck-"));
const targets = {
  sqlite: `file:${path.join(scratch, "check.db")}`,
  postgresql: process.env.CHECK_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
};

spawnSync(process.execPath, [path.join(root, "prisma/scripts/gen-schemas.mjs")], { stdio: "inherit" });
let failed = false;
for (const [provider, url] of Object.entries(targets)) {
  const r = spawnSync(process.execPath, [path.join(root, "prisma/scripts/migrate.mjs"), "diff", "--schema", `prisma/${provider}/schema.prisma`], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (r.status === 0) {
    console.log(`${provider}: migrations match prisma/models.prisma`);
  } else {
    failed = true;
    const why = r.status === 2 ? "the schema has changes no migration contains:" : "the check could not run:";
    console.error(`${provider}: ${why}\n${r.stdout}${r.stderr}\nCreate one with: DATABASE_URL=<a ${provider} database> npm run db:migrate -- --name <what changed>`);
  }
}
fs.rmSync(scratch, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
