// Prints the Pothos schema as SDL: `npm run schema:print` writes schema.graphql; `-- --check` fails on drift.
import fs from "node:fs";
import path from "node:path";
import { lexicographicSortSchema, printSchema } from "graphql";
import { schema } from "../graphql/schema/index.ts";
import { projectRoot } from "../platform/paths.ts";

const file = path.join(projectRoot, "schema.graphql");
const sdl = `${printSchema(lexicographicSortSchema(schema))}\n`;
if (process.argv.includes("--check")) {
  const committed = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  if (committed !== sdl) {
    console.error("schema.graphql is out of date with the Pothos schema: run `npm run schema:print` and commit it.");
    process.exit(1);
  }
  console.log("schema.graphql matches the Pothos schema");
} else {
  fs.writeFileSync(file, sdl);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
