-- AlterTable
ALTER TABLE "OAuthClient" ALTER COLUMN "ownerId" DROP NOT NULL;
