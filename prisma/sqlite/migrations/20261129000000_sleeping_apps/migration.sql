-- AlterTable
ALTER TABLE "App" ADD COLUMN "sleepAfterMinutes" INTEGER;
ALTER TABLE "App" ADD COLUMN "sleepWorkers" BOOLEAN NOT NULL DEFAULT false;
