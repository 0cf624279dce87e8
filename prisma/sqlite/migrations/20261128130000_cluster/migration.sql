-- CreateTable
CREATE TABLE "ClusterLease" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "holder" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ClusterInstance" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "address" TEXT NOT NULL,
    "runtime" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "lastSeenAt" DATETIME NOT NULL
);
