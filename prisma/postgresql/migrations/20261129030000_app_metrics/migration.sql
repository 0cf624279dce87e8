-- CreateTable
CREATE TABLE "AppUsageMinute" (
    "appId" TEXT NOT NULL,
    "minute" TIMESTAMP(3) NOT NULL,
    "process" TEXT NOT NULL,
    "cpu" DOUBLE PRECISION NOT NULL,
    "memory" DOUBLE PRECISION NOT NULL,
    "memoryLimit" DOUBLE PRECISION NOT NULL,
    "restarts" INTEGER NOT NULL,

    CONSTRAINT "AppUsageMinute_pkey" PRIMARY KEY ("appId","minute","process")
);

-- CreateTable
CREATE TABLE "AppRequestMinute" (
    "appId" TEXT NOT NULL,
    "minute" TIMESTAMP(3) NOT NULL,
    "source" TEXT NOT NULL,
    "requests" INTEGER NOT NULL,
    "errors" INTEGER NOT NULL,
    "latency" TEXT NOT NULL,

    CONSTRAINT "AppRequestMinute_pkey" PRIMARY KEY ("appId","minute","source")
);

-- CreateIndex
CREATE INDEX "AppUsageMinute_minute_idx" ON "AppUsageMinute"("minute");

-- CreateIndex
CREATE INDEX "AppRequestMinute_minute_idx" ON "AppRequestMinute"("minute");

-- AddForeignKey
ALTER TABLE "AppUsageMinute" ADD CONSTRAINT "AppUsageMinute_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AppRequestMinute" ADD CONSTRAINT "AppRequestMinute_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
