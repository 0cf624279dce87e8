import { defineConfig } from "prisma/config";
// Used only by `prisma generate --schema prisma/<provider>/schema.prisma`; migrations go through prisma/scripts/migrate.mjs.
export default defineConfig({ schema: "prisma/sqlite/schema.prisma" });
