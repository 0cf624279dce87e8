-- DropIndex
DROP INDEX "QuotaRequest_status_idx";

-- AlterTable
ALTER TABLE "QuotaRequest" ADD COLUMN "decisionReason" TEXT;

-- CreateIndex
CREATE INDEX "QuotaRequest_status_createdAt_idx" ON "QuotaRequest"("status", "createdAt");
