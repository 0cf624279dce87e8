-- AlterTable
ALTER TABLE "LogLine" ADD COLUMN "instance" INTEGER;

-- AlterTable
ALTER TABLE "QuotaRequest" ADD COLUMN "maxInstances" INTEGER;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Quota" (
    "userId" TEXT NOT NULL PRIMARY KEY,
    "requestsPerMinute" INTEGER NOT NULL,
    "maxApps" INTEGER NOT NULL,
    "maxDatabases" INTEGER NOT NULL,
    "maxInstances" INTEGER NOT NULL DEFAULT 4,
    "cdnBytes" BIGINT NOT NULL,
    "maxUploadBytes" BIGINT NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Quota_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Quota" ("cdnBytes", "maxApps", "maxDatabases", "maxUploadBytes", "requestsPerMinute", "updatedAt", "userId") SELECT "cdnBytes", "maxApps", "maxDatabases", "maxUploadBytes", "requestsPerMinute", "updatedAt", "userId" FROM "Quota";
DROP TABLE "Quota";
ALTER TABLE "new_Quota" RENAME TO "Quota";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
