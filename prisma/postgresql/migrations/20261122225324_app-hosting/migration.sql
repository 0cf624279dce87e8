/*
  Warnings:

  - You are about to drop the column `restartCount` on the `App` table. All the data in the column will be lost.

*/
-- AlterTable
ALTER TABLE "App" DROP COLUMN "restartCount",
ADD COLUMN     "instances" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "previews" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Deployment" ADD COLUMN     "rollbackOfId" TEXT,
ADD COLUMN     "steps" JSONB,
ADD COLUMN     "web" JSONB;
