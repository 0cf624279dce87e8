-- AlterTable
ALTER TABLE "OAuthAuthorizationCode" ADD COLUMN "replayedAt" DATETIME;
