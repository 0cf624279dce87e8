-- CreateTable
CREATE TABLE "ClusterLease" (
    "name" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ClusterLease_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "ClusterInstance" (
    "id" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "runtime" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "lastSeenAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ClusterInstance_pkey" PRIMARY KEY ("id")
);
