-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_OAuthClient" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clientId" TEXT NOT NULL,
    "secretHash" TEXT,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "redirectUris" JSONB NOT NULL,
    "public" BOOLEAN NOT NULL DEFAULT false,
    "ownerId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "OAuthClient_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_OAuthClient" ("clientId", "createdAt", "description", "id", "name", "ownerId", "public", "redirectUris", "secretHash", "updatedAt") SELECT "clientId", "createdAt", "description", "id", "name", "ownerId", "public", "redirectUris", "secretHash", "updatedAt" FROM "OAuthClient";
DROP TABLE "OAuthClient";
ALTER TABLE "new_OAuthClient" RENAME TO "OAuthClient";
CREATE UNIQUE INDEX "OAuthClient_clientId_key" ON "OAuthClient"("clientId");
CREATE INDEX "OAuthClient_ownerId_idx" ON "OAuthClient"("ownerId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
