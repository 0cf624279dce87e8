// SQLite databases: a file in the app's own data directory (DATA_DIR/apps/<appId>/data/<id>.db), which only
// that app's sandbox sees (bound read-write at /data) and which survives redeploys. Backups use SQLite's online
// backup API, so the app may keep writing meanwhile; a restore replaces the file while the app is stopped.
// The app controls that folder (it may leave symbolic links in it), so backups and restores run in a child
// process under the folder owner's uid, never as the platform's root: a link to another file reaches nothing
// the app itself could not. The child's working folder is beside the data folder, outside every sandbox.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import Database from "better-sqlite3";
import { ConflictError } from "../../errors.ts";
import { checkedId, type DatabaseProvisioner, type DatabaseRef } from "./types.ts";

export interface SqliteHost {
  /** The file's path on the host and as the app's processes see it. */
  pathOf(appId: string, file: string): { host: string; inApp: string };
}

const SIDE_FILES = ["-wal", "-shm", "-journal"];
const TIMEOUT_MS = 30 * 60_000;

// Run by `node -e` as the data folder's owner: argv = [op, better-sqlite3's path, from, to].
const WORKER = `
const fs = require("node:fs");
const [op, driver, from, to] = process.argv.slice(1);
const Database = require(driver);
(async () => {
  if (op === "backup") {
    const db = new Database(from, { readonly: true, fileMustExist: true });
    try { await db.backup(to); } finally { db.close(); }
  } else if (op === "restore") {
    const check = new Database(from, { readonly: true, fileMustExist: true });
    let sound;
    try { sound = check.pragma("quick_check", { simple: true }) === "ok"; } finally { check.close(); }
    if (!sound) throw new Error("the backup is not a sound SQLite database");
    const staged = to + ".restore";
    fs.rmSync(staged, { force: true });
    fs.copyFileSync(from, staged, fs.constants.COPYFILE_EXCL);
    for (const side of ${JSON.stringify(SIDE_FILES)}) fs.rmSync(to + side, { force: true });
    fs.renameSync(staged, to);
  } else throw new Error("unknown operation " + op);
})().catch((error) => { process.stderr.write(String(error && error.message)); process.exit(1); });
`;

const driverPath = createRequire(import.meta.url).resolve("better-sqlite3");

export function createSqliteProvisioner(host: SqliteHost): DatabaseProvisioner {
  const fileOf = (ref: DatabaseRef) => host.pathOf(ref.appId, `${checkedId(ref.id)}.db`);

  /** Runs the worker as the data folder's owner, with a private working folder owned by it. */
  async function asOwner<T>(ref: DatabaseRef, work: (dir: string, run: (op: string, from: string, to: string) => Promise<void>) => Promise<T>): Promise<T> {
    const dataDir = path.dirname(fileOf(ref).host);
    const owner = await fs.stat(dataDir);
    const dir = path.join(path.dirname(dataDir), `.sqlite-work-${randomBytes(8).toString("hex")}`);
    await fs.mkdir(dir, { mode: 0o700 });
    try {
      await fs.chown(dir, owner.uid, owner.gid);
      const run = (op: string, from: string, to: string) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ["-e", WORKER, op, driverPath, from, to], {
            uid: owner.uid,
            gid: owner.gid,
            env: {},
            stdio: ["ignore", "ignore", "pipe"],
            timeout: TIMEOUT_MS,
          });
          child.stderr.resume();
          child.once("error", reject);
          child.once("close", (code) => {
            if (code === 0) return resolve();
            // The app's folder, not the platform, is at fault (a file replaced by a link, removed, unreadable);
            // the worker's own words name host paths, so they stay out of the answer.
            reject(new ConflictError(`The database file could not be ${op === "backup" ? "read" : "replaced"}: the app may have removed it or put something else in its place.`));
          });
        });
      return await work(dir, run);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  return {
    type: "sqlite",

    async create(ref) {
      const file = fileOf(ref);
      await fs.mkdir(path.dirname(file.host), { recursive: true, mode: 0o700 });
      // An empty database under a fresh random name; the runtime gives the folder to the app's uid at start.
      new Database(file.host).close();
      return `file:${file.inApp}`;
    },

    async drop(ref) {
      const { host: file } = fileOf(ref);
      for (const suffix of ["", ...SIDE_FILES]) await fs.rm(file + suffix, { force: true }); // never follows a link
    },

    backup: (ref, _url, target) =>
      asOwner(ref, async (dir, run) => {
        const copy = path.join(dir, "backup.db");
        await run("backup", fileOf(ref).host, copy);
        await fs.copyFile(copy, target);
      }),

    restore: (ref, _url, source) =>
      asOwner(ref, async (dir, run) => {
        const staged = path.join(dir, "restore.db");
        await fs.copyFile(source, staged);
        const owner = await fs.stat(dir);
        await fs.chown(staged, owner.uid, owner.gid);
        await run("restore", staged, fileOf(ref).host);
      }),

    async close() {},
  };
}
