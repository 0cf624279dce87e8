// The committed artefacts must match their sources: schema.graphql ↔ Pothos, migrations ↔ models.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { lexicographicSortSchema, printSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../../server/graphql/schema/index.ts";
import { POSTGRES_ADMIN_URL } from "../helpers/server.ts";

describe("committed artefacts", () => {
  it("schema.graphql is the printed Pothos schema (run `npm run schema:print`)", () => {
    expect(fs.readFileSync("schema.graphql", "utf8")).toBe(`${printSchema(lexicographicSortSchema(schema))}\n`);
  });

  it("the migrations of both providers produce prisma/models.prisma (`npm run db:check`)", () => {
    const result = spawnSync(process.execPath, ["prisma/scripts/check-migrations.mjs"], {
      env: { ...process.env, CHECK_POSTGRES_URL: POSTGRES_ADMIN_URL },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("sqlite: migrations match");
    expect(result.stdout).toContain("postgresql: migrations match");
    expect(result.status).toBe(0);
  });
});
