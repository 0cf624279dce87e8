// The platform never loses its last active administrator. Checking "is there another one?" and then writing
// is a race: two administrators stepping down at once both see the other and both succeed (write skew). So
// the check runs after the write, inside the same serializable transaction: SQLite runs such transactions one
// at a time, and PostgreSQL aborts one of two that read what the other wrote (reported as a conflict: retry).
import type { Db } from "../db/client.ts";
import { ConflictError } from "../errors.ts";

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

export async function keepingAnAdmin<T>(db: Db, refusal: string, change: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await db.$transaction(
      async (tx) => {
        const result = await change(tx as Tx);
        const left = await tx.user.count({ where: { role: "ADMIN", status: "ACTIVE" } });
        if (left === 0) throw new ConflictError(refusal);
        return result;
      },
      { isolationLevel: "Serializable" },
    );
  } catch (error) {
    if (isWriteConflict(error)) throw new ConflictError("Another change to administrators was made at the same moment: try again.");
    throw error;
  }
}

/** Prisma's P2034 (a statement of the transaction), or the driver adapter's own error when the commit itself fails. */
function isWriteConflict(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "P2034" || (typeof message === "string" && /TransactionWriteConflict|could not serialize/.test(message));
}
