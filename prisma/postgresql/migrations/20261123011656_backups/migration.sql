-- CreateEnum
CREATE TYPE "BackupTrigger" AS ENUM ('manual', 'scheduled');

-- CreateTable
CREATE TABLE "Backup" (
    "id" TEXT NOT NULL,
    "resourceId" TEXT NOT NULL,
    "storageKey" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "trigger" "BackupTrigger" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Backup_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Backup_storageKey_key" ON "Backup"("storageKey");

-- CreateIndex
CREATE INDEX "Backup_resourceId_createdAt_idx" ON "Backup"("resourceId", "createdAt");

-- AddForeignKey
ALTER TABLE "Backup" ADD CONSTRAINT "Backup_resourceId_fkey" FOREIGN KEY ("resourceId") REFERENCES "Resource"("id") ON DELETE CASCADE ON UPDATE CASCADE;
