// The token endpoint's prepared SQL (server/db/oauth-token-store.ts) against the tables Prisma migrates:
// rows it writes must read back through Prisma unchanged, on SQLite and on PostgreSQL, and on SQLite a
// write must wait for a Prisma transaction holding the write lock rather than fail or block the thread.
// Writes requested together are committed together on SQLite, each still all-or-nothing.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOAuthTokenStore, type NewTokenRow, type OAuthTokenStore } from "../../server/db/oauth-token-store.ts";
import { createSql, type Sql } from "../../server/db/sql.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let sql: Sql;
let store: OAuthTokenStore;
let userId: string;
let clientRowId: string;

const db = () => server.slipway.platform.db;
let sequence = 0;
const newTokens = (): NewTokenRow & { refreshTokenHash: string } => {
  sequence += 1;
  return {
    accessTokenHash: `access-${sequence}`,
    accessTokenExpiresAt: new Date(Date.UTC(2030, 0, 2, 3, 4, 5, 678)),
    refreshTokenHash: `refresh-${sequence}`,
    scope: "read:user",
    grantScope: "read:user write:apps",
    familyId: `family-${sequence}`,
    clientId: clientRowId,
    userId,
    authorizationCodeId: null,
  };
};

beforeAll(async () => {
  server = await startServer();
  sql = createSql(server.config.databaseUrl);
  store = createOAuthTokenStore(sql);
  const user = await db().user.create({ data: { name: "store-user", email: "store@example.com", passwordHash: "x", role: "ADMIN", status: "PENDING" } });
  const client = await db().oAuthClient.create({
    data: { clientId: "svc_store", name: "Store app", redirectUris: [], public: true, ownerId: user.id },
  });
  userId = user.id;
  clientRowId = client.id;
});

afterAll(async () => {
  await sql?.close();
  await server?.close();
});

describe("OAuth token store", () => {
  it("finds a client by its public id, with its flags as booleans, and nothing for an unknown id", async () => {
    expect(await store.findClient("svc_store")).toEqual({ id: clientRowId, clientId: "svc_store", name: "Store app", public: true });
    expect(await store.findClient("svc_nobody")).toBeUndefined();
  });

  it("writes tokens that Prisma reads back with the same timestamps", async () => {
    const before = Date.now();
    const input = newTokens();
    const { id } = (await store.insertTokens(input))!;
    const row = await db().oAuthToken.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ accessTokenHash: input.accessTokenHash, refreshTokenHash: input.refreshTokenHash, scope: input.scope, grantScope: input.grantScope, familyId: input.familyId });
    expect(row.accessTokenExpiresAt.toISOString()).toBe("2030-01-02T03:04:05.678Z");
    expect(row.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(row.createdAt.getTime()).toBeLessThanOrEqual(Date.now() + 1);
    expect(row.rotatedAt).toBeNull();
  });

  it("finds a refresh token with its user and client, and stores exactly one successor when two race to replace it", async () => {
    const input = newTokens();
    const { id } = (await store.insertTokens(input))!;
    expect(await store.findRefreshToken(input.refreshTokenHash)).toEqual({
      id,
      familyId: input.familyId,
      scope: input.grantScope, // a refresh token carries the grant's scope, not its access token's
      rotated: false,
      revoked: false,
      user: { id: userId, role: "ADMIN", status: "PENDING" },
      client: { id: clientRowId, clientId: "svc_store", name: "Store app", public: true },
    });
    const successors = [newTokens(), newTokens()];
    const stored = await Promise.all(successors.map((s) => store.insertTokens(s, { replacing: id })));
    expect(stored.filter(Boolean)).toHaveLength(1);
    const rows = await db().oAuthToken.findMany({ where: { accessTokenHash: { in: successors.map((s) => s.accessTokenHash) } } });
    expect(rows.map((r) => r.id)).toEqual([stored.find(Boolean)!.id]);
    const rotatedAt = (await db().oAuthToken.findUniqueOrThrow({ where: { id } })).rotatedAt;
    expect(Math.abs(rotatedAt!.getTime() - Date.now())).toBeLessThan(5_000);
    expect((await store.findRefreshToken(input.refreshTokenHash))?.rotated).toBe(true);
  });

  it("stores nothing in place of a revoked refresh token", async () => {
    const input = newTokens();
    const { id } = (await store.insertTokens(input))!;
    await db().oAuthToken.update({ where: { id }, data: { revokedAt: new Date() } });
    const successor = newTokens();
    expect(await store.insertTokens(successor, { replacing: id })).toBeNull();
    expect(await db().oAuthToken.findUnique({ where: { accessTokenHash: successor.accessTokenHash } })).toBeNull();
    expect((await store.findRefreshToken(input.refreshTokenHash))?.revoked).toBe(true);
  });

  it("rolls back only the failing one of writes requested together, and keeps the others", async () => {
    const existing = newTokens();
    await store.insertTokens(existing);
    const exchanged = newTokens();
    const { id: exchangedId } = (await store.insertTokens(exchanged))!;
    const [first, clash, last] = [newTokens(), { ...newTokens(), accessTokenHash: existing.accessTokenHash }, newTokens()];
    // Same turn of the event loop: on SQLite these three share one transaction and one commit.
    const outcomes = await Promise.allSettled([
      store.insertTokens(first),
      store.insertTokens(clash, { replacing: exchangedId }),
      store.insertTokens(last),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const stored = await db().oAuthToken.findMany({ where: { refreshTokenHash: { in: [first, clash, last].map((t) => t.refreshTokenHash) } } });
    expect(stored.map((t) => t.refreshTokenHash).sort()).toEqual([first.refreshTokenHash, last.refreshTokenHash].sort());
    // The clashing chain's first write (retiring the exchanged token) was rolled back with it.
    expect((await store.findRefreshToken(exchanged.refreshTokenHash))?.rotated).toBe(false);
  });

  it.skipIf(process.env.TEST_DATABASE === "postgres")("waits for a Prisma transaction that holds SQLite's write lock, then writes", async () => {
    let transactionDone = 0;
    const transaction = db().$transaction(async (tx) => {
      await tx.user.update({ where: { id: userId }, data: { avatar: "held" } });
      await sleep(200);
      transactionDone = Date.now();
    });
    await sleep(50); // the transaction has written: it holds the lock
    const input = newTokens();
    const { id } = (await store.insertTokens(input))!;
    const written = Date.now();
    await transaction;
    expect(transactionDone).toBeGreaterThan(0);
    expect(written).toBeGreaterThanOrEqual(transactionDone);
    expect(await db().oAuthToken.findUnique({ where: { id } })).not.toBeNull();
    expect((await db().user.findUniqueOrThrow({ where: { id: userId } })).avatar).toBe("held");
  });
});
