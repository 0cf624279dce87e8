-- AlterTable
ALTER TABLE "OAuthAuthorizationCode" ADD COLUMN     "replayedAt" TIMESTAMP(3);
