// Several instances behind one database and one Redis must agree on who is signed in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { REDIS_URL, startServer, type TestServer } from "../helpers/server.ts";

let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  const prefix = `slipway-test-${process.pid}-${Date.now()}:`;
  a = await startServer({ REDIS_URL, REDIS_KEY_PREFIX: prefix });
  b = await startServer({ REDIS_URL, REDIS_KEY_PREFIX: prefix, DATABASE_URL: a.config.databaseUrl });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function eventually(check: () => Promise<boolean>) {
  for (let i = 0; i < 50 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
  return check();
}

describe("two instances sharing the database and Redis", () => {
  it("a sign-out on one instance ends the session on the other, which had it cached", async () => {
    const onA = new Client(a.url);
    await onA.signup();
    const onB = new Client(b.url);
    onB.cookie = onA.cookie;
    expect((await onB.get("/api/me")).status).toBe(200);
    expect((await onB.get("/api/me")).status).toBe(200); // served from B's cache
    expect((await onA.post("/api/auth/logout")).status).toBe(204);
    expect(await eventually(async () => (await onB.get("/api/me")).status === 401)).toBe(true);
  });

  it("a quota change made through one instance shows on the other", async () => {
    const onA = new Client(a.url);
    const { user } = await onA.signup();
    const onB = new Client(b.url);
    onB.cookie = onA.cookie;
    expect((await onB.get("/api/me")).body.quota.maxApps).toBe(5);
    await a.slipway.platform.db.quota.update({ where: { userId: user.id }, data: { maxApps: 7 } });
    expect(await eventually(async () => (await onB.get("/api/me")).body.quota.maxApps === 7)).toBe(true);
  });
});
