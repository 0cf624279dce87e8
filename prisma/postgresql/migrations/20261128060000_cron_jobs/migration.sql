-- AlterTable
ALTER TABLE "Deployment" ADD COLUMN     "cron" JSONB;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "cronJobId" TEXT;

-- CreateTable
CREATE TABLE "CronJob" (
    "id" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "command" TEXT NOT NULL,
    "schedule" TEXT NOT NULL,
    "timeoutSeconds" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CronJob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CronTick" (
    "cronJobId" TEXT NOT NULL,
    "scheduledFor" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CronTick_pkey" PRIMARY KEY ("cronJobId","scheduledFor")
);

-- CreateIndex
CREATE INDEX "CronJob_appId_idx" ON "CronJob"("appId");

-- CreateIndex
CREATE INDEX "CronTick_scheduledFor_idx" ON "CronTick"("scheduledFor");

-- CreateIndex
CREATE INDEX "Run_cronJobId_createdAt_idx" ON "Run"("cronJobId", "createdAt");

-- AddForeignKey
ALTER TABLE "CronJob" ADD CONSTRAINT "CronJob_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CronTick" ADD CONSTRAINT "CronTick_cronJobId_fkey" FOREIGN KEY ("cronJobId") REFERENCES "CronJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
