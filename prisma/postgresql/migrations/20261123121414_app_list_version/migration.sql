-- CreateTable
CREATE TABLE "AppListVersion" (
    "ownerId" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "AppListVersion_pkey" PRIMARY KEY ("ownerId")
);

-- AddForeignKey
ALTER TABLE "AppListVersion" ADD CONSTRAINT "AppListVersion_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Every change to an owner's apps bumps the owner's list version (db/app-reads.ts). Written by hand: Prisma
-- does not model triggers.
INSERT INTO "AppListVersion" ("ownerId", "version") SELECT DISTINCT "ownerId", 1 FROM "App";

CREATE FUNCTION "App_bump_list_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "AppListVersion" ("ownerId", "version") VALUES (NEW."ownerId", 1)
      ON CONFLICT ("ownerId") DO UPDATE SET "version" = "AppListVersion"."version" + 1;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE "AppListVersion" SET "version" = "version" + 1 WHERE "ownerId" IN (OLD."ownerId", NEW."ownerId");
  ELSE
    UPDATE "AppListVersion" SET "version" = "version" + 1 WHERE "ownerId" = OLD."ownerId";
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "App_list_version" AFTER INSERT OR UPDATE OR DELETE ON "App"
  FOR EACH ROW EXECUTE FUNCTION "App_bump_list_version"();
