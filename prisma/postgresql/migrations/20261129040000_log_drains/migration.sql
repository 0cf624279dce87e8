-- CreateTable
CREATE TABLE "LogDrain" (
    "id" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "sent" BIGINT NOT NULL DEFAULT 0,
    "dropped" BIGINT NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LogDrain_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "LogDrain_appId_idx" ON "LogDrain"("appId");

-- AddForeignKey
ALTER TABLE "LogDrain" ADD CONSTRAINT "LogDrain_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
