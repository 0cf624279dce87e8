-- AlterTable
ALTER TABLE "App" ADD COLUMN     "healthcheck" JSONB;

-- AlterTable
ALTER TABLE "Deployment" ADD COLUMN     "failureOutput" JSONB;
