-- AlterTable
ALTER TABLE "ClusterInstance" ADD COLUMN "edgeUpstream" TEXT;
ALTER TABLE "ClusterInstance" ADD COLUMN "edgeResolver" TEXT;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "instanceId" TEXT;
