// The installation every instance on one database belongs to: its key labels what the container runtimes create,
// so that whichever instance leads finds (adopts, reaps) what another one started. Made by the first instance, with
// the key it labelled with alone (its DATA_DIR's), so that an instance that ran alone before keeps what it started.
import type { Db } from "../../db/client.ts";

export async function installationKey(db: Db, firstKey: string): Promise<string> {
  const found = await db.installation.findUnique({ where: { id: 1 } });
  if (found) return found.key;
  // Two first instances at once: one creates the row, the other reads it.
  await db.installation.create({ data: { id: 1, key: firstKey } }).catch(() => {});
  return (await db.installation.findUniqueOrThrow({ where: { id: 1 } })).key;
}
