// The installation every instance on one database belongs to: its key labels what the container runtimes create,
// so that whichever instance leads finds (adopts, reaps) what another one started. Made by the first instance.
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/client.ts";

export async function installationKey(db: Db): Promise<string> {
  const found = await db.installation.findUnique({ where: { id: 1 } });
  if (found) return found.key;
  // Two first instances at once: one creates the row, the other reads it.
  await db.installation.create({ data: { id: 1, key: randomBytes(6).toString("hex") } }).catch(() => {});
  return (await db.installation.findUniqueOrThrow({ where: { id: 1 } })).key;
}
