-- A token row's grantScope starts as its scope: what every row issued so far was granted.
-- AlterTable
ALTER TABLE "OAuthToken" ADD COLUMN "grantScope" TEXT;
UPDATE "OAuthToken" SET "grantScope" = "scope";
ALTER TABLE "OAuthToken" ALTER COLUMN "grantScope" SET NOT NULL;
