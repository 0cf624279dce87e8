/*
  Warnings:

  - You are about to drop the column `secretHash` on the `OAuthClient` table. All the data in the column will be lost.

*/
-- CreateTable
CREATE TABLE "OAuthClientSecret" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clientId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "lastFour" TEXT NOT NULL DEFAULT '',
    "lastUsedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OAuthClientSecret_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "OAuthClient" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Existing secrets move to the new table (their last four characters were never stored).
INSERT INTO "OAuthClientSecret" ("id", "clientId", "secretHash", "createdAt")
SELECT 'moved_' || "id", "id", "secretHash", "updatedAt" FROM "OAuthClient" WHERE "secretHash" IS NOT NULL;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_OAuthClient" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clientId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "homepageUrl" TEXT NOT NULL DEFAULT '',
    "logoFileId" TEXT,
    "redirectUris" JSONB NOT NULL,
    "public" BOOLEAN NOT NULL DEFAULT false,
    "ownerId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "OAuthClient_logoFileId_fkey" FOREIGN KEY ("logoFileId") REFERENCES "File" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "OAuthClient_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_OAuthClient" ("clientId", "createdAt", "description", "id", "name", "ownerId", "public", "redirectUris", "updatedAt") SELECT "clientId", "createdAt", "description", "id", "name", "ownerId", "public", "redirectUris", "updatedAt" FROM "OAuthClient";
DROP TABLE "OAuthClient";
ALTER TABLE "new_OAuthClient" RENAME TO "OAuthClient";
CREATE UNIQUE INDEX "OAuthClient_clientId_key" ON "OAuthClient"("clientId");
CREATE INDEX "OAuthClient_ownerId_idx" ON "OAuthClient"("ownerId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "OAuthClientSecret_secretHash_key" ON "OAuthClientSecret"("secretHash");

-- CreateIndex
CREATE INDEX "OAuthClientSecret_clientId_idx" ON "OAuthClientSecret"("clientId");
