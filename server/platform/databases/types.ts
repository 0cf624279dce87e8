// The database provisioner contract: one driver per database type. Drivers know nothing of users, quotas or
// Prisma: they get a database's generated id and its app's id, and work with the connection URL they made.

export type DatabaseType = "postgres" | "sqlite";

export interface DatabaseRef {
  /** The resource's generated id (lowercase letters and digits): names the database, role or file. */
  id: string;
  appId: string;
}

export interface DatabaseProvisioner {
  readonly type: DatabaseType;
  /** Creates the database; answers the URL the app's processes connect with. Nothing is left behind on failure. */
  create(ref: DatabaseRef): Promise<string>;
  /** Drops the database for real (its connections first); no error when it is already gone. */
  drop(ref: DatabaseRef): Promise<void>;
  /** Writes a backup of the database into `file` (a platform-only path). */
  backup(ref: DatabaseRef, url: string, file: string): Promise<void>;
  /** Replaces the database's content with the backup in `file`. The caller stops the app around it. */
  restore(ref: DatabaseRef, url: string, file: string): Promise<void>;
  close(): Promise<void>;
}

/** A generated id is the only thing that names a database object; anything else is refused. */
export function checkedId(id: string): string {
  if (!/^[a-z0-9]{8,40}$/.test(id)) throw new Error(`not a generated database id: ${JSON.stringify(id)}`);
  return id;
}
