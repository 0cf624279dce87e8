/*
  Warnings:

  - You are about to drop the column `secretHash` on the `OAuthClient` table. All the data in the column will be lost.

*/
-- CreateTable
CREATE TABLE "OAuthClientSecret" (
    "id" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "lastFour" TEXT NOT NULL DEFAULT '',
    "lastUsedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OAuthClientSecret_pkey" PRIMARY KEY ("id")
);

-- Existing secrets move to the new table (their last four characters were never stored).
INSERT INTO "OAuthClientSecret" ("id", "clientId", "secretHash", "createdAt")
SELECT 'moved_' || "id", "id", "secretHash", "updatedAt" FROM "OAuthClient" WHERE "secretHash" IS NOT NULL;

-- AlterTable
ALTER TABLE "OAuthClient" DROP COLUMN "secretHash",
ADD COLUMN     "homepageUrl" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "logoFileId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "OAuthClientSecret_secretHash_key" ON "OAuthClientSecret"("secretHash");

-- CreateIndex
CREATE INDEX "OAuthClientSecret_clientId_idx" ON "OAuthClientSecret"("clientId");

-- AddForeignKey
ALTER TABLE "OAuthClient" ADD CONSTRAINT "OAuthClient_logoFileId_fkey" FOREIGN KEY ("logoFileId") REFERENCES "File"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OAuthClientSecret" ADD CONSTRAINT "OAuthClientSecret_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "OAuthClient"("id") ON DELETE CASCADE ON UPDATE CASCADE;
