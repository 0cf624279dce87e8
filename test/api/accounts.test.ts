import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, uniqueName } from "../helpers/client.ts";
import { REDIS_URL, startServer, type TestServer } from "../helpers/server.ts";
import { verifyEmail } from "../helpers/accounts.ts";

const PASSWORD = "correct horse battery";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ ADMIN_EMAILS: "boss@example.com" });
});
afterAll(() => server?.close());

describe("GET /api/me", () => {
  it("answers 401 unauthenticated with WWW-Authenticate when nobody is signed in", async () => {
    const res = await new Client(server.url).get("/api/me");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthenticated");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="slipway"');
  });

  it("answers 401 invalid_token for a bearer token that does not exist", async () => {
    const res = await new Client(server.url).get("/api/me", { authorization: "Bearer nope" });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_token");
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("treats an unknown session cookie as signed out", async () => {
    const res = await new Client(server.url).get("/api/me", { cookie: "slipway_session=forged" });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthenticated");
  });

  it("returns the user and their quota with the configured defaults", async () => {
    const client = new Client(server.url);
    const { name, email } = await client.signup();
    const res = await client.get("/api/me");
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ name, preferred_username: name, email, avatar: null, role: "USER", status: "ACTIVE" });
    expect(new Date(res.body.user.createdAt).toISOString()).toBe(res.body.user.createdAt);
    expect(res.body.quota).toEqual({
      requestsPerMinute: 120,
      maxApps: 5,
      maxDatabases: 3,
      maxInstances: 4,
      cdnBytes: 100 * 1024 * 1024,
      maxUploadBytes: 50 * 1024 * 1024,
      usage: { apps: 0, databases: 0, instances: 0, cdnBytes: 0 },
    });
  });

  it("gives new accounts the quota set by the DEFAULT_* settings", async () => {
    const configured = await startServer({
      DEFAULT_REQUESTS_PER_MINUTE: "60",
      DEFAULT_MAX_APPS: "7",
      DEFAULT_MAX_DATABASES: "2",
      DEFAULT_MAX_INSTANCES: "6",
      DEFAULT_CDN_BYTES: "1024",
      DEFAULT_MAX_UPLOAD_BYTES: "512",
    });
    try {
      const client = new Client(configured.url);
      await client.signup();
      const res = await client.get("/api/me");
      expect(res.body.quota).toEqual({
        requestsPerMinute: 60,
        maxApps: 7,
        maxDatabases: 2,
        maxInstances: 6,
        cdnBytes: 1024,
        maxUploadBytes: 512,
        usage: { apps: 0, databases: 0, instances: 0, cdnBytes: 0 },
      });
      expect(res.headers.get("ratelimit-limit")).toBe("60");
    } finally {
      await configured.close();
    }
  });
});

describe("POST /api/auth/signup", () => {
  it("creates the account, answers 201 {user} and sets an HttpOnly SameSite=Lax session cookie", async () => {
    const name = uniqueName();
    const res = await new Client(server.url).post("/api/auth/signup", { email: `${name}@Example.com`, password: PASSWORD, name });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ user: expect.objectContaining({ name, email: `${name}@example.com`, role: "USER" }) });
    const cookie = res.headers.getSetCookie()[0];
    expect(cookie).toMatch(/^slipway_session=[\w-]{40,};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure"); // PUBLIC_URL is http here
  });

  it("lists every bad field in one 400", async () => {
    const res = await new Client(server.url).post("/api/auth/signup", { email: "not-an-email", password: "short", name: "-Bad_Name" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(Object.keys(res.body.error.details.fields).sort()).toEqual(["email", "name", "password"]);
    expect(res.body.error.details.fields.password).toMatch(/at least 8/);
  });

  it("answers 400 naming the field for a wrong type, a missing field and an unknown field", async () => {
    const client = new Client(server.url);
    const wrongType = await client.post("/api/auth/signup", { email: "a@b.io", password: PASSWORD, name: 5 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details.fields).toHaveProperty("name");
    const missing = await client.post("/api/auth/signup", { email: "a@b.io", name: "abc" });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields).toHaveProperty("password");
    const unknown = await client.post("/api/auth/signup", { email: "a@b.io", password: PASSWORD, name: "abc", admin: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.fields).toHaveProperty("admin");
  });

  it("answers 400 for malformed JSON, a non-object body and no body", async () => {
    const client = new Client(server.url);
    const malformed = await client.request("POST", "/api/auth/signup", { body: "{nope", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_request");
    const array = await client.post("/api/auth/signup", [1, 2]);
    expect(array.status).toBe(400);
    const none = await client.request("POST", "/api/auth/signup");
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/JSON object/);
  });

  it("answers 400 for text with NUL characters, anywhere in the body (PostgreSQL cannot store them)", async () => {
    const client = new Client(server.url);
    const signup = await client.post("/api/auth/signup", { email: "nul\u0000@example.com", password: PASSWORD, name: "nul-user" });
    expect(signup.status).toBe(400);
    expect(signup.body.error.code).toBe("invalid_request");
    const login = await client.post("/api/auth/login", { email: "a@b.io", password: "pass\u0000word" });
    expect(login.status).toBe(400);
    const graphql = await client.graphql("{ __typename }", { x: ["\u0000"] });
    expect(graphql.status).toBe(400);
  });

  it("answers 415 for a body that is not JSON", async () => {
    const res = await new Client(server.url).request("POST", "/api/auth/signup", { body: "email=a", headers: { "content-type": "text/plain" } });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe("unsupported_media_type");
  });

  it("answers 409 when the email or the name is taken, case-insensitively for email", async () => {
    const first = await new Client(server.url).signup();
    const sameEmail = await new Client(server.url).post("/api/auth/signup", { email: first.email.toUpperCase(), password: PASSWORD, name: uniqueName() });
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.body.error).toMatchObject({ code: "conflict", details: { fields: { email: expect.any(String) } } });
    const sameName = await new Client(server.url).post("/api/auth/signup", { email: `${uniqueName()}@example.com`, password: PASSWORD, name: first.name });
    expect(sameName.status).toBe(409);
    expect(sameName.body.error.details.fields).toHaveProperty("name");
  });

  it("gives role ADMIN to an email listed in ADMIN_EMAILS only once the address is verified", async () => {
    const client = new Client(server.url);
    const { user, email, password } = await client.signup({ email: "Boss@example.com" });
    expect(user).toMatchObject({ role: "USER", email: "boss@example.com" });
    expect((await client.graphql("{ me { role emailVerified } }")).body.data.me).toEqual({ role: "USER", emailVerified: false });
    // Signing in does not promote an unverified address either.
    expect((await new Client(server.url).post("/api/auth/login", { email, password })).body.user.role).toBe("USER");
    expect(await verifyEmail(server, email)).toMatchObject({ role: "ADMIN", status: "ACTIVE" });
    expect((await client.graphql("{ me { role emailVerified } }")).body.data.me).toEqual({ role: "ADMIN", emailVerified: true });
  });

  it.each([["password"], ["12345678"], ["        "], ["qwertyuiop"], ["Password1!"]])(
    "refuses the common or guessable password %j with 400 saying why",
    async (password) => {
      const name = uniqueName();
      const res = await new Client(server.url).post("/api/auth/signup", { email: `${name}@example.com`, password, name });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.details.fields.password).toMatch(/^This password is too easy to guess\. \S.+/);
    },
  );

  it("refuses a password made of the account's own email or name", async () => {
    const name = uniqueName("zebulon");
    const res = await new Client(server.url).post("/api/auth/signup", { email: `${name}@example.com`, password: `${name}`, name });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields.password).toMatch(/too easy to guess/);
  });

  it("stores only a hash of the password", async () => {
    const { email, password } = await new Client(server.url).signup();
    const row = await server.slipway.platform.db.user.findUniqueOrThrow({ where: { email } });
    expect(row.passwordHash).not.toContain(password);
    expect(row.passwordHash).toMatch(/^scrypt\$/);
  });
});

describe("POST /api/auth/login and logout", () => {
  it("answers 401 invalid_credentials with the same message for an unknown email and a wrong password", async () => {
    const { email } = await new Client(server.url).signup();
    const wrong = await new Client(server.url).post("/api/auth/login", { email, password: "wrong password" });
    const unknown = await new Client(server.url).post("/api/auth/login", { email: `${uniqueName()}@example.com`, password: "wrong password" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error.code).toBe("invalid_credentials");
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
  });

  it("signs in with the email in any case, and logout revokes that session server-side", async () => {
    const { email, password } = await new Client(server.url).signup();
    const client = new Client(server.url);
    const login = await client.post("/api/auth/login", { email: email.toUpperCase(), password });
    expect(login.status).toBe(200);
    expect(login.body.user.email).toBe(email);
    const stolenCookie = client.cookie!;
    expect((await client.get("/api/me")).status).toBe(200);

    const logout = await client.post("/api/auth/logout");
    expect(logout.status).toBe(204);
    expect(logout.headers.getSetCookie()[0]).toMatch(/^slipway_session=;/);
    // The old cookie no longer works, even if someone kept a copy.
    const replay = await new Client(server.url).get("/api/me", { cookie: stolenCookie });
    expect(replay.status).toBe(401);
  });

  it("throttles repeated failures for one account with 429 and Retry-After, even with the right password", async () => {
    const { email, password } = await new Client(server.url).signup();
    const client = new Client(server.url);
    for (let i = 0; i < 10; i++) expect((await client.post("/api/auth/login", { email, password: "nope nope" })).status).toBe(401);
    const blocked = await client.post("/api/auth/login", { email, password });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe("rate_limited");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("sign-in throttle under concurrent requests", () => {
  let throttled: TestServer;
  beforeAll(async () => {
    throttled = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  });
  afterAll(() => throttled?.close());

  const login = (email: string, password: string) => new Client(throttled.url).post("/api/auth/login", { email, password });

  it("checks no more than 10 of 40 simultaneous wrong guesses: the rest are refused unchecked", async () => {
    const { email } = await new Client(throttled.url).signup();
    const statuses = (await Promise.all(Array.from({ length: 40 }, (_, i) => login(email, `wrong guess ${i}`)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  });

  it("after 9 failures, checks only one of a burst of 20 guesses that holds the right password", async () => {
    const { email, password } = await new Client(throttled.url).signup();
    for (let i = 0; i < 9; i++) expect((await login(email, `wrong guess ${i}`)).status).toBe(401);
    const burst = Array.from({ length: 20 }, (_, i) => (i === 10 ? password : `burst guess ${i}`));
    const statuses = (await Promise.all(burst.map((guess) => login(email, guess)))).map((r) => r.status);
    expect(statuses.filter((s) => s !== 429)).toHaveLength(1);
  });

  it("does not lock the owner out: an attacker's failures from one address leave sign-in from another open", async () => {
    const { email, password } = await new Client(throttled.url).signup();
    for (let i = 0; i < 10; i++) expect((await postFrom("127.0.0.2", throttled.url, "/api/auth/login", { email, password: `guess ${i}` })).status).toBe(401);
    expect((await postFrom("127.0.0.2", throttled.url, "/api/auth/login", { email, password })).status).toBe(429);
    expect((await postFrom("127.0.0.3", throttled.url, "/api/auth/login", { email, password })).status).toBe(200);
  });
});

/** POSTs JSON from a given local address (any 127.x.y.z reaches the server on loopback), as another client would. */
function postFrom(localAddress: string, base: string, path: string, json: unknown): Promise<{ status: number; body: any }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(json);
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk) => (text += chunk)).on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("ADMIN_EMAILS for accounts created before their email was listed", () => {
  it("makes a verified account ADMIN (and ACTIVE) at its next sign-in, an unverified one not", async () => {
    const unlisted = await startServer({ REQUIRE_APPROVAL: "true" });
    try {
      const { email, password, user } = await new Client(unlisted.url).signup();
      expect(user).toMatchObject({ role: "USER", status: "PENDING" });
      const unverified = await new Client(unlisted.url).signup();
      expect(await verifyEmail(unlisted, email)).toMatchObject({ role: "USER", status: "PENDING" });
      // A second instance on the same database (several instances share events through Redis).
      const listed = await startServer({
        REQUIRE_APPROVAL: "true",
        DATABASE_URL: unlisted.config.databaseUrl,
        REDIS_URL,
        REDIS_KEY_PREFIX: `slipway-test-${process.pid}-${Date.now()}:`,
        ADMIN_EMAILS: `other@example.com, ${email.toUpperCase()}, ${unverified.email}`,
      });
      try {
        const stillUser = await new Client(listed.url).post("/api/auth/login", { email: unverified.email, password: unverified.password });
        expect(stillUser.body.user).toMatchObject({ role: "USER", status: "PENDING" });
        const client = new Client(listed.url);
        const login = await client.post("/api/auth/login", { email, password });
        expect(login.status).toBe(200);
        expect(login.body.user).toMatchObject({ role: "ADMIN", status: "ACTIVE" });
        expect((await client.get("/api/me")).body.user).toMatchObject({ role: "ADMIN", status: "ACTIVE" });
      } finally {
        await listed.close();
      }
      // Taking the email off the list later does not demote: ADMIN_EMAILS only grants.
      expect((await new Client(unlisted.url).post("/api/auth/login", { email, password })).body.user.role).toBe("ADMIN");
    } finally {
      await unlisted.close();
    }
  });
});

describe("CSRF rule for cookie-authenticated writes", () => {
  it("refuses a cookie-carrying POST from another origin with 403, and allows same-origin and no-Origin requests", async () => {
    const client = new Client(server.url);
    await client.signup();
    const evil = await client.post("/api/auth/logout", undefined, { origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.body.error.code).toBe("forbidden");
    expect((await client.get("/api/me")).status).toBe(200); // the session survived
    const graphqlEvil = await client.graphql("mutation { logout }", undefined, { origin: "https://evil.example" });
    expect(graphqlEvil.status).toBe(403);
    expect(graphqlEvil.body.errors?.[0].extensions?.code).toBe("forbidden");
    const sameOrigin = await client.post("/api/auth/logout", undefined, { origin: server.url });
    expect(sameOrigin.status).toBe(204);
  });
});

describe("GraphQL", () => {
  it("answers the same account through /graphql with the session cookie", async () => {
    const client = new Client(server.url);
    const { name } = await client.signup();
    const res = await client.graphql("{ me { name preferredUsername role quota { maxApps usage { apps } } } }");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ me: { name, preferredUsername: name, role: "USER", quota: { maxApps: 5, usage: { apps: 0 } } } });
  });

  it("reports variables that do not fit the operation as invalid_request, not as an internal error", async () => {
    const res = await new Client(server.url).graphql(`mutation($i: SignupInput!) { signup(input: $i) { __typename } }`, { i: 5 });
    expect(res.body.errors?.[0].extensions?.code).toBe("invalid_request");
    expect(res.body.errors?.[0].message).toMatch(/SignupInput/);
    const syntax = await new Client(server.url).graphql("{ me {");
    expect(syntax.body.errors?.[0].extensions?.code).toBe("invalid_request");
  });

  it("reports unauthenticated in extensions.code", async () => {
    const res = await new Client(server.url).graphql("{ me { name } }");
    expect(res.body.errors?.[0].extensions?.code).toBe("unauthenticated");
  });

  it("returns validation problems as typed union members", async () => {
    const res = await new Client(server.url).graphql(
      `mutation($input: SignupInput!) { signup(input: $input) { __typename ... on InvalidRequestError { code fields { field message } } } }`,
      { input: { email: "x", password: PASSWORD, name: "ok-name" } },
    );
    expect(res.body.data.signup).toMatchObject({ __typename: "InvalidRequestError", code: "invalid_request", fields: [{ field: "email" }] });
  });

  it("signs up, reads and signs out through GraphQL alone", async () => {
    const client = new Client(server.url);
    const name = uniqueName();
    const signup = await client.graphql(
      `mutation($input: SignupInput!) { signup(input: $input) { ... on AuthPayload { user { name } } } }`,
      { input: { email: `${name}@example.com`, password: PASSWORD, name } },
    );
    expect(signup.body.data.signup.user.name).toBe(name);
    expect(client.cookie).toBeDefined();
    expect((await client.graphql("{ viewer { user { name } quota { maxDatabases } } }")).body.data.viewer).toEqual({
      user: { name },
      quota: { maxDatabases: 3 },
    });
    expect((await client.graphql("mutation { logout }")).body.data.logout).toBe(true);
    expect((await client.graphql("{ me { name } }")).body.errors?.[0].extensions?.code).toBe("unauthenticated");
  });
});
