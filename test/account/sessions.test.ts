// Active sessions: GET /api/me/sessions lists them (device, address, last used, which is this one);
// DELETE /api/me/sessions/:id signs one out, DELETE /api/me/sessions every other one, across instances too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { REDIS_URL, startServer, type TestServer } from "../helpers/server.ts";

const PASSWORD = "correct horse battery";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SAFARI = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
});
afterAll(() => server?.close());

async function signInAgain(email: string, userAgent: string) {
  const client = new Client(server.url);
  const res = await client.request("POST", "/api/auth/login", { json: { email, password: PASSWORD }, headers: { "user-agent": userAgent } });
  expect(res.status).toBe(200);
  return client;
}

describe("sessions", () => {
  it("every route answers 401 without credentials", async () => {
    const anonymous = new Client(server.url);
    const attempts = await Promise.all([
      anonymous.get("/api/me/sessions"),
      anonymous.request("DELETE", "/api/me/sessions"),
      anonymous.request("DELETE", "/api/me/sessions/abc"),
    ]);
    expect(attempts.map((r) => r.status)).toEqual([401, 401, 401]);
  });

  it("lists the active sessions with device, address, times and the current one", async () => {
    const laptop = new Client(server.url);
    const { email } = await laptop.signup();
    const phone = await signInAgain(email, SAFARI);
    const desktop = await signInAgain(email, FIREFOX);
    const res = await desktop.get("/api/me/sessions");
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    const current = res.body.filter((s: { current: boolean }) => s.current);
    expect(current).toHaveLength(1);
    expect(current[0]).toMatchObject({ device: "Firefox on Linux", userAgent: FIREFOX, address: "127.0.0.1" });
    expect(res.body.map((s: { device: string }) => s.device).sort()).toEqual(["Firefox on Linux", "Node.js", "Safari on iOS"]);
    for (const session of res.body) {
      expect(Date.parse(session.createdAt)).toBeGreaterThan(Date.now() - 60_000);
      expect(Date.parse(session.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(session.createdAt));
    }
    // A signed-out session is no longer listed; another user's sessions never are.
    expect((await phone.post("/api/auth/logout")).status).toBe(204);
    const stranger = new Client(server.url);
    await stranger.signup();
    expect((await desktop.get("/api/me/sessions")).body).toHaveLength(2);
    expect((await stranger.get("/api/me/sessions")).body).toHaveLength(1);
  });

  it("pages through the sessions over GraphQL with first and after", async () => {
    const client = new Client(server.url);
    const { email } = await client.signup();
    await signInAgain(email, FIREFOX);
    await signInAgain(email, SAFARI);
    const all = (await client.graphql("{ sessions { id } }")).body.data.sessions.map((s: { id: string }) => s.id);
    expect(all).toHaveLength(3);
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 3; i++) {
      const res = await client.graphql<{ sessions: { id: string }[] }>("query($after: String) { sessions(first: 1, after: $after) { id } }", { after });
      expect(res.body.data?.sessions).toHaveLength(1);
      const id: string = res.body.data!.sessions[0].id;
      seen.push(id);
      after = id;
    }
    expect(seen).toEqual(all);
    expect((await client.graphql("query($after: String) { sessions(first: 1, after: $after) { id } }", { after })).body.data.sessions).toEqual([]);
    expect((await client.graphql("{ sessions(first: 101) { id } }")).body.errors?.[0].extensions?.code).toBe("invalid_request");
  });

  it("lastUsedAt follows the session's requests", async () => {
    const client = new Client(server.url);
    const { user } = await client.signup(); // no request with the session yet
    const { db } = server.slipway.platform;
    const longAgo = new Date(Date.now() - 3600_000);
    await db.session.updateMany({ where: { userId: user.id }, data: { lastSeenAt: longAgo } });
    const before = Date.now();
    await client.get("/api/me");
    let row = await db.session.findFirstOrThrow({ where: { userId: user.id } });
    for (let i = 0; i < 50 && row.lastSeenAt.getTime() === longAgo.getTime(); i++) {
      await new Promise((r) => setTimeout(r, 20));
      row = await db.session.findFirstOrThrow({ where: { userId: user.id } });
    }
    expect(row.lastSeenAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    const [listed] = (await client.get("/api/me/sessions")).body;
    expect(Date.parse(listed.lastUsedAt)).toBe(row.lastSeenAt.getTime());
  });

  it("signs one session out: its cookie answers 401 at once; unknown and other users' ids are 404", async () => {
    const owner = new Client(server.url);
    const { email } = await owner.signup();
    const other = await signInAgain(email, FIREFOX);
    expect((await other.get("/api/me")).status).toBe(200); // cached now
    const sessions = (await owner.get("/api/me/sessions")).body;
    const target = sessions.find((s: { current: boolean }) => !s.current);
    const stranger = new Client(server.url);
    await stranger.signup();
    const theirs = await stranger.request("DELETE", `/api/me/sessions/${target.id}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe("not_found");
    expect((await other.get("/api/me")).status).toBe(200);
    expect((await owner.request("DELETE", "/api/me/sessions/nope")).status).toBe(404);
    const res = await owner.request("DELETE", `/api/me/sessions/${target.id}`);
    expect(res.status).toBe(204);
    expect((await other.get("/api/me")).status).toBe(401);
    expect((await owner.get("/api/me")).status).toBe(200);
    // Signed out already: 404 the second time.
    expect((await owner.request("DELETE", `/api/me/sessions/${target.id}`)).status).toBe(404);
  });

  it("signing out the current session clears its cookie", async () => {
    const client = new Client(server.url);
    await client.signup();
    const [own] = (await client.get("/api/me/sessions")).body;
    const kept = client.cookie;
    const res = await client.request("DELETE", `/api/me/sessions/${own.id}`);
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("slipway_session=;"))).toBe(true);
    const replay = new Client(server.url);
    replay.cookie = kept;
    expect((await replay.get("/api/me")).status).toBe(401);
  });

  it("DELETE /api/me/sessions signs out every other session", async () => {
    const owner = new Client(server.url);
    const { email } = await owner.signup();
    const others = [await signInAgain(email, FIREFOX), await signInAgain(email, SAFARI)];
    expect((await owner.request("DELETE", "/api/me/sessions")).status).toBe(204);
    for (const other of others) expect((await other.get("/api/me")).status).toBe(401);
    const left = (await owner.get("/api/me/sessions")).body;
    expect(left).toHaveLength(1);
    expect(left[0].current).toBe(true);
  });
});

describe("two instances sharing the database and Redis", () => {
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

  it("a session signed out on one instance is refused on the other, which had it cached", async () => {
    const owner = new Client(a.url);
    const { email } = await owner.signup();
    const onB = new Client(b.url);
    expect((await onB.post("/api/auth/login", { email, password: PASSWORD })).status).toBe(200);
    expect((await onB.get("/api/me")).status).toBe(200);
    expect((await onB.get("/api/me")).status).toBe(200); // served from B's cache
    const target = (await owner.get("/api/me/sessions")).body.find((s: { current: boolean }) => !s.current);
    expect((await owner.request("DELETE", `/api/me/sessions/${target.id}`)).status).toBe(204);
    let status = 200;
    for (let i = 0; i < 50 && status !== 401; i++) {
      status = (await onB.get("/api/me")).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(401);
  });
});
