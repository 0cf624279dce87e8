-- CreateTable
CREATE TABLE "AppUsageMinute" (
    "appId" TEXT NOT NULL,
    "minute" DATETIME NOT NULL,
    "process" TEXT NOT NULL,
    "cpu" REAL NOT NULL,
    "memory" REAL NOT NULL,
    "memoryLimit" REAL NOT NULL,
    "restarts" INTEGER NOT NULL,

    PRIMARY KEY ("appId", "minute", "process"),
    CONSTRAINT "AppUsageMinute_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AppRequestMinute" (
    "appId" TEXT NOT NULL,
    "minute" DATETIME NOT NULL,
    "source" TEXT NOT NULL,
    "requests" INTEGER NOT NULL,
    "errors" INTEGER NOT NULL,
    "latency" TEXT NOT NULL,

    PRIMARY KEY ("appId", "minute", "source"),
    CONSTRAINT "AppRequestMinute_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "AppUsageMinute_minute_idx" ON "AppUsageMinute"("minute");

-- CreateIndex
CREATE INDEX "AppRequestMinute_minute_idx" ON "AppRequestMinute"("minute");
