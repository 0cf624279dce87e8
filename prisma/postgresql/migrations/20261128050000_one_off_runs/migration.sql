-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELED');

-- CreateEnum
CREATE TYPE "RunTrigger" AS ENUM ('api', 'cron');

-- AlterEnum
ALTER TYPE "LogKind" ADD VALUE 'run';

-- AlterTable
ALTER TABLE "LogLine" ADD COLUMN     "runId" TEXT;

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "deploymentId" TEXT,
    "command" TEXT NOT NULL,
    "trigger" "RunTrigger" NOT NULL DEFAULT 'api',
    "status" "RunStatus" NOT NULL DEFAULT 'QUEUED',
    "timeoutSeconds" INTEGER NOT NULL,
    "exitCode" INTEGER,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Run_appId_createdAt_idx" ON "Run"("appId", "createdAt");

-- CreateIndex
CREATE INDEX "LogLine_runId_timestamp_idx" ON "LogLine"("runId", "timestamp");

-- AddForeignKey
ALTER TABLE "LogLine" ADD CONSTRAINT "LogLine_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
