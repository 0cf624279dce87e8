-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "appId" TEXT NOT NULL,
    "deploymentId" TEXT,
    "command" TEXT NOT NULL,
    "trigger" TEXT NOT NULL DEFAULT 'api',
    "status" TEXT NOT NULL DEFAULT 'QUEUED',
    "timeoutSeconds" INTEGER NOT NULL,
    "exitCode" INTEGER,
    "error" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "Run_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_LogLine" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "appId" TEXT NOT NULL,
    "deploymentId" TEXT,
    "kind" TEXT NOT NULL,
    "stream" TEXT NOT NULL,
    "instance" INTEGER,
    "runId" TEXT,
    "line" TEXT NOT NULL,
    "timestamp" TEXT NOT NULL,
    CONSTRAINT "LogLine_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "LogLine_deploymentId_fkey" FOREIGN KEY ("deploymentId") REFERENCES "Deployment" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "LogLine_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_LogLine" ("appId", "deploymentId", "id", "instance", "kind", "line", "stream", "timestamp") SELECT "appId", "deploymentId", "id", "instance", "kind", "line", "stream", "timestamp" FROM "LogLine";
DROP TABLE "LogLine";
ALTER TABLE "new_LogLine" RENAME TO "LogLine";
CREATE INDEX "LogLine_appId_kind_timestamp_idx" ON "LogLine"("appId", "kind", "timestamp");
CREATE INDEX "LogLine_deploymentId_kind_timestamp_idx" ON "LogLine"("deploymentId", "kind", "timestamp");
CREATE INDEX "LogLine_runId_timestamp_idx" ON "LogLine"("runId", "timestamp");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Run_appId_createdAt_idx" ON "Run"("appId", "createdAt");
