-- AlterTable
ALTER TABLE "App" ADD COLUMN "formation" JSONB;

-- AlterTable
ALTER TABLE "Deployment" ADD COLUMN "processes" JSONB;

-- AlterTable
ALTER TABLE "LogLine" ADD COLUMN "process" TEXT;
