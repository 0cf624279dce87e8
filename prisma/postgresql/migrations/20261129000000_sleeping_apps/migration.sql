-- AlterEnum
ALTER TYPE "AppStatus" ADD VALUE 'SLEEPING';

-- AlterTable
ALTER TABLE "App" ADD COLUMN "sleepAfterMinutes" INTEGER,
ADD COLUMN "sleepWorkers" BOOLEAN NOT NULL DEFAULT false;
