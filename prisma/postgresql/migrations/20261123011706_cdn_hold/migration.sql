-- CreateTable
CREATE TABLE "CdnHold" (
    "userId" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "CdnHold_pkey" PRIMARY KEY ("userId")
);

-- AddForeignKey
ALTER TABLE "CdnHold" ADD CONSTRAINT "CdnHold_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
