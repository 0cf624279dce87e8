// SQLite databases: a file in the app's own data directory (DATA_DIR/apps/<appId>/data/<id>.db), which only
// that app's sandbox sees (bound read-write at /data) and which survives redeploys. Backups use SQLite's online
// backup API, so the app may keep writing meanwhile; a restore replaces the file while the app is stopped.
import fs from "node:fs/promises";
import path from "node:path";
import Database from "better-sqlite3";
import { checkedId, type DatabaseProvisioner, type DatabaseRef } from "./types.ts";

export interface SqliteHost {
  /** The file's path on the host and as the app's processes see it. */
  pathOf(appId: string, file: string): { host: string; inApp: string };
}

const SIDE_FILES = ["-wal", "-shm", "-journal"];

export function createSqliteProvisioner(host: SqliteHost): DatabaseProvisioner {
  const fileOf = (ref: DatabaseRef) => host.pathOf(ref.appId, `${checkedId(ref.id)}.db`);

  return {
    type: "sqlite",
    restoreStopsApp: true,

    async create(ref) {
      const file = fileOf(ref);
      await fs.mkdir(path.dirname(file.host), { recursive: true, mode: 0o700 });
      new Database(file.host).close(); // an empty database; the runtime gives the folder to the app's uid at start
      return `file:${file.inApp}`;
    },

    async drop(ref) {
      const { host: file } = fileOf(ref);
      for (const suffix of ["", ...SIDE_FILES]) await fs.rm(file + suffix, { force: true });
    },

    async backup(ref, _url, target) {
      const db = new Database(fileOf(ref).host, { readonly: true, fileMustExist: true });
      try {
        await db.backup(target);
      } finally {
        db.close();
      }
    },

    async restore(ref, _url, source) {
      const { host: file } = fileOf(ref);
      const check = new Database(source, { readonly: true, fileMustExist: true });
      try {
        if (check.pragma("quick_check", { simple: true }) !== "ok") throw new Error("the backup is not a sound SQLite database");
      } finally {
        check.close();
      }
      const owner = await fs.stat(file).catch(() => null);
      const staged = `${file}.restore`;
      await fs.copyFile(source, staged);
      if (owner) await fs.chown(staged, owner.uid, owner.gid);
      await fs.chmod(staged, owner ? owner.mode & 0o777 : 0o600);
      for (const suffix of SIDE_FILES) await fs.rm(file + suffix, { force: true });
      await fs.rename(staged, file);
    },

    async close() {},
  };
}
