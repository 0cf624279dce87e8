-- A token row's grantScope starts as its scope: what every row issued so far was granted.
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_OAuthToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accessTokenHash" TEXT NOT NULL,
    "accessTokenExpiresAt" DATETIME NOT NULL,
    "refreshTokenHash" TEXT,
    "refreshTokenExpiresAt" DATETIME,
    "scope" TEXT NOT NULL,
    "grantScope" TEXT NOT NULL,
    "familyId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "authorizationCodeId" TEXT,
    "rotatedAt" DATETIME,
    "revokedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OAuthToken_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "OAuthClient" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "OAuthToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "OAuthToken_authorizationCodeId_fkey" FOREIGN KEY ("authorizationCodeId") REFERENCES "OAuthAuthorizationCode" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_OAuthToken" ("accessTokenExpiresAt", "accessTokenHash", "authorizationCodeId", "clientId", "createdAt", "familyId", "id", "refreshTokenExpiresAt", "refreshTokenHash", "revokedAt", "rotatedAt", "scope", "grantScope", "userId") SELECT "accessTokenExpiresAt", "accessTokenHash", "authorizationCodeId", "clientId", "createdAt", "familyId", "id", "refreshTokenExpiresAt", "refreshTokenHash", "revokedAt", "rotatedAt", "scope", "scope", "userId" FROM "OAuthToken";
DROP TABLE "OAuthToken";
ALTER TABLE "new_OAuthToken" RENAME TO "OAuthToken";
CREATE UNIQUE INDEX "OAuthToken_accessTokenHash_key" ON "OAuthToken"("accessTokenHash");
CREATE UNIQUE INDEX "OAuthToken_refreshTokenHash_key" ON "OAuthToken"("refreshTokenHash");
CREATE INDEX "OAuthToken_familyId_idx" ON "OAuthToken"("familyId");
CREATE INDEX "OAuthToken_userId_clientId_idx" ON "OAuthToken"("userId", "clientId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
