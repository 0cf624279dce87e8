-- AlterTable
ALTER TABLE "Deployment" ADD COLUMN "commitMessage" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_App" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT 'CREATED',
    "repo" TEXT,
    "branch" TEXT NOT NULL DEFAULT 'main',
    "autoDeploy" BOOLEAN NOT NULL DEFAULT false,
    "previews" BOOLEAN NOT NULL DEFAULT false,
    "instances" INTEGER NOT NULL DEFAULT 1,
    "githubToken" TEXT,
    "previewOfId" TEXT,
    "ownerId" TEXT NOT NULL,
    "liveDeploymentId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "App_previewOfId_fkey" FOREIGN KEY ("previewOfId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "App_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "App_liveDeploymentId_fkey" FOREIGN KEY ("liveDeploymentId") REFERENCES "Deployment" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_App" ("autoDeploy", "branch", "createdAt", "description", "id", "instances", "liveDeploymentId", "name", "ownerId", "previews", "repo", "slug", "status", "updatedAt") SELECT "autoDeploy", "branch", "createdAt", "description", "id", "instances", "liveDeploymentId", "name", "ownerId", "previews", "repo", "slug", "status", "updatedAt" FROM "App";
DROP TABLE "App";
ALTER TABLE "new_App" RENAME TO "App";
CREATE UNIQUE INDEX "App_slug_key" ON "App"("slug");
CREATE UNIQUE INDEX "App_liveDeploymentId_key" ON "App"("liveDeploymentId");
CREATE INDEX "App_ownerId_idx" ON "App"("ownerId");
CREATE INDEX "App_previewOfId_idx" ON "App"("previewOfId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
