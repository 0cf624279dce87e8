-- AlterTable
ALTER TABLE "LogLine" ADD COLUMN     "instance" INTEGER;

-- AlterTable
ALTER TABLE "Quota" ADD COLUMN     "maxInstances" INTEGER NOT NULL DEFAULT 4;

-- AlterTable
ALTER TABLE "QuotaRequest" ADD COLUMN     "maxInstances" INTEGER;
