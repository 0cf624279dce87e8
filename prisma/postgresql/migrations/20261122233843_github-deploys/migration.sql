-- AlterTable
ALTER TABLE "App" ADD COLUMN     "githubToken" TEXT,
ADD COLUMN     "previewOfId" TEXT;

-- AlterTable
ALTER TABLE "Deployment" ADD COLUMN     "commitMessage" TEXT;

-- CreateIndex
CREATE INDEX "App_previewOfId_idx" ON "App"("previewOfId");

-- AddForeignKey
ALTER TABLE "App" ADD CONSTRAINT "App_previewOfId_fkey" FOREIGN KEY ("previewOfId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
