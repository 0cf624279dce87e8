/*
  Warnings:

  - A unique constraint covering the columns `[pendingFor]` on the table `QuotaRequest` will be added. If there are existing duplicate values, this will fail.

*/
-- DropIndex
DROP INDEX "QuotaRequest_status_idx";

-- AlterTable
ALTER TABLE "QuotaRequest" ADD COLUMN     "decisionReason" TEXT,
ADD COLUMN     "pendingFor" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "QuotaRequest_pendingFor_key" ON "QuotaRequest"("pendingFor");

-- CreateIndex
CREATE INDEX "QuotaRequest_status_createdAt_idx" ON "QuotaRequest"("status", "createdAt");
