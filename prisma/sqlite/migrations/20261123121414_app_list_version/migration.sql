-- CreateTable
CREATE TABLE "AppListVersion" (
    "ownerId" TEXT NOT NULL PRIMARY KEY,
    "version" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "AppListVersion_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Every change to an owner's apps bumps the owner's list version (db/app-reads.ts). Written by hand: Prisma
-- does not model triggers. SQLite drops them with the table, so a migration that redefines "App" recreates them.
INSERT INTO "AppListVersion" ("ownerId", "version") SELECT DISTINCT "ownerId", 1 FROM "App";

CREATE TRIGGER "App_list_version_insert" AFTER INSERT ON "App" BEGIN
  INSERT INTO "AppListVersion" ("ownerId", "version") VALUES (NEW."ownerId", 1)
    ON CONFLICT ("ownerId") DO UPDATE SET "version" = "version" + 1;
END;

CREATE TRIGGER "App_list_version_update" AFTER UPDATE ON "App" BEGIN
  UPDATE "AppListVersion" SET "version" = "version" + 1 WHERE "ownerId" IN (OLD."ownerId", NEW."ownerId");
END;

CREATE TRIGGER "App_list_version_delete" AFTER DELETE ON "App" BEGIN
  UPDATE "AppListVersion" SET "version" = "version" + 1 WHERE "ownerId" = OLD."ownerId";
END;
