// A durable oidc-provider storage adapter on SQLite (better-sqlite3, WAL, the journal mode Slipway's own
// SQLite database runs in), so the token endpoint comparison is disk against disk. One table for every
// model, the shape of oidc-provider's example adapters: id, payload JSON, expiry and the secondary keys.
import Database from "better-sqlite3";
import type { Adapter, AdapterPayload } from "oidc-provider";

export function sqliteAdapter(file: string): new (name: string) => Adapter {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec(`CREATE TABLE IF NOT EXISTS oidc (
    model TEXT NOT NULL, id TEXT NOT NULL, payload TEXT NOT NULL, expires_at INTEGER,
    grant_id TEXT, user_code TEXT, uid TEXT, PRIMARY KEY (model, id))`);
  db.exec("CREATE INDEX IF NOT EXISTS oidc_grant ON oidc (grant_id)");
  const upsert = db.prepare(
    `INSERT INTO oidc (model, id, payload, expires_at, grant_id, user_code, uid) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, expires_at = excluded.expires_at`,
  );
  const findBy = (column: "id" | "user_code" | "uid") =>
    db.prepare<[string, string, number], { payload: string }>(
      `SELECT payload FROM oidc WHERE model = ? AND ${column} = ? AND (expires_at IS NULL OR expires_at > ?)`,
    );
  const byId = findBy("id");
  const byUserCode = findBy("user_code");
  const byUid = findBy("uid");
  const consume = db.prepare("UPDATE oidc SET payload = json_set(payload, '$.consumed', ?) WHERE model = ? AND id = ?");
  const destroy = db.prepare("DELETE FROM oidc WHERE model = ? AND id = ?");
  const revokeByGrant = db.prepare("DELETE FROM oidc WHERE grant_id = ?");

  const parse = (row: { payload: string } | undefined) => (row ? (JSON.parse(row.payload) as AdapterPayload) : undefined);

  return class SqliteAdapter implements Adapter {
    constructor(private readonly model: string) {}
    async upsert(id: string, payload: AdapterPayload, expiresIn: number) {
      const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : null;
      upsert.run(this.model, id, JSON.stringify(payload), expiresAt, payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null);
    }
    async find(id: string) {
      return parse(byId.get(this.model, id, Date.now()));
    }
    async findByUserCode(userCode: string) {
      return parse(byUserCode.get(this.model, userCode, Date.now()));
    }
    async findByUid(uid: string) {
      return parse(byUid.get(this.model, uid, Date.now()));
    }
    async consume(id: string) {
      consume.run(Math.floor(Date.now() / 1000), this.model, id);
    }
    async destroy(id: string) {
      destroy.run(this.model, id);
    }
    async revokeByGrantId(grantId: string) {
      revokeByGrant.run(grantId);
    }
  };
}
