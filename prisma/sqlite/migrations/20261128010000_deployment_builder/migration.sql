-- AlterTable
ALTER TABLE "Deployment" ADD COLUMN "builder" TEXT;
