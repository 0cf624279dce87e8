// Account self-service over REST: change name and email (PATCH /api/me) and password (POST /api/me/password).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, uniqueName } from "../helpers/client.ts";
import { startMailbox, linkIn, type Mailbox } from "../helpers/mailbox.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { verifyEmail } from "../helpers/accounts.ts";
import { bearer, issueTokens, registerClient } from "../oauth/helpers.ts";

const PASSWORD = "correct horse battery";
const NEW_PASSWORD = "quiet lantern orbit meadow";

let server: TestServer;
let mailbox: Mailbox;
beforeAll(async () => {
  mailbox = await startMailbox();
  server = await startServer({ SMTP_URL: mailbox.url, ADMIN_EMAILS: "chief@example.com", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
});
afterAll(async () => {
  await server?.close();
  await mailbox?.close();
});

async function signedIn() {
  const client = new Client(server.url);
  const account = await client.signup();
  return { client, ...account };
}

describe("PATCH /api/me", () => {
  it("answers 401 without credentials", async () => {
    const res = await new Client(server.url).request("PATCH", "/api/me", { json: { name: "someone" } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthenticated");
  });

  it("refuses an invalid handle or email, an empty change and a non-JSON body with 400", async () => {
    const { client } = await signedIn();
    const bad = await client.request("PATCH", "/api/me", { json: { name: "Not A Handle" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_request");
    expect(bad.body.error.details.fields.name).toMatch(/lowercase/);
    const badEmail = await client.request("PATCH", "/api/me", { json: { email: "nope", currentPassword: PASSWORD } });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.error.details.fields.email).toMatch(/valid email/);
    const empty = await client.request("PATCH", "/api/me", { json: {} });
    expect(empty.status).toBe(400);
    const text = await client.request("PATCH", "/api/me", { body: "name=x", headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
  });

  it("changes the handle; a taken handle is 409 conflict", async () => {
    const { client, user } = await signedIn();
    const other = await signedIn();
    const taken = await client.request("PATCH", "/api/me", { json: { name: other.name } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("conflict");
    expect(taken.body.error.details.fields.name).toMatch(/taken/);
    const name = uniqueName("renamed");
    const res = await client.request("PATCH", "/api/me", { json: { name } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, name, preferred_username: name });
    expect((await client.get("/api/me")).body.user.name).toBe(name);
  });

  it("needs the current password to change the email: missing or wrong is 400 and nothing changes", async () => {
    const { client, email } = await signedIn();
    const target = `${uniqueName("moved")}@example.com`;
    const missing = await client.request("PATCH", "/api/me", { json: { email: target } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields.currentPassword).toMatch(/current password/);
    const wrong = await client.request("PATCH", "/api/me", { json: { email: target, currentPassword: "not my password" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.fields.currentPassword).toBe("The current password is incorrect.");
    expect((await client.get("/api/me")).body.user.email).toBe(email);
  });

  it("refuses an email another account uses with 409", async () => {
    const { client } = await signedIn();
    const other = await signedIn();
    const res = await client.request("PATCH", "/api/me", { json: { email: other.email.toUpperCase(), currentPassword: PASSWORD } });
    expect(res.status).toBe(409);
    expect(res.body.error.details.fields.email).toBeDefined();
  });

  it("a changed email is unverified again and gets a verification link that verifies it", async () => {
    const { client, email } = await signedIn();
    await verifyEmail(server, email);
    await mailbox.next(email); // the sign-up mail
    const target = `${uniqueName("moved")}@example.com`;
    const res = await client.request("PATCH", "/api/me", { json: { email: target, currentPassword: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(target);
    const me = await client.graphql("{ viewer { user { email emailVerified } } }");
    expect(me.body.data.viewer.user).toEqual({ email: target, emailVerified: false });
    const link = linkIn(await mailbox.next(target), `${server.url}/verify?token=`);
    const notice = await mailbox.next(email);
    expect(notice.subject).toBe("Your Slipway email address was changed");
    expect(notice.text).toContain(`from ${email} to ${target}`);
    const verified = await new Client(server.url).post("/api/auth/verify", { token: link.searchParams.get("token") });
    expect(verified.status).toBe(200);
    expect((await client.graphql("{ viewer { user { emailVerified } } }")).body.data.viewer.user.emailVerified).toBe(true);
  });

  it("moving to an ADMIN_EMAILS address grants nothing until the link mailed there is followed", async () => {
    const { client } = await signedIn();
    const res = await client.request("PATCH", "/api/me", { json: { email: "chief@example.com", currentPassword: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body.role).toBe("USER");
    // A new sign-in of the unverified address does not promote either.
    const again = new Client(server.url);
    expect((await again.post("/api/auth/login", { email: "chief@example.com", password: PASSWORD })).body.user.role).toBe("USER");
    expect((await client.graphql("{ viewer { can { administer } } }")).body.data.viewer.can.administer).toBe(false);
    const link = linkIn(await mailbox.next("chief@example.com"), `${server.url}/verify?token=`);
    const verified = await new Client(server.url).post("/api/auth/verify", { token: link.searchParams.get("token") });
    expect(verified.body.user.role).toBe("ADMIN");
  });

  it("a link mailed to the old address no longer verifies the account", async () => {
    const { client, email } = await signedIn();
    const oldLink = linkIn(await mailbox.next(email), `${server.url}/verify?token=`);
    const target = `${uniqueName("moved")}@example.com`;
    expect((await client.request("PATCH", "/api/me", { json: { email: target, currentPassword: PASSWORD } })).status).toBe(200);
    const res = await new Client(server.url).post("/api/auth/verify", { token: oldLink.searchParams.get("token") });
    expect(res.status).toBe(400);
    expect((await client.graphql("{ viewer { user { emailVerified } } }")).body.data.viewer.user.emailVerified).toBe(false);
  });

  it("needs write:user: an account waiting for approval gets 403 account_pending", async () => {
    const pending = await startServer({ REQUIRE_APPROVAL: "true" });
    try {
      const client = new Client(pending.url);
      await client.signup();
      const res = await client.request("PATCH", "/api/me", { json: { name: uniqueName("x") } });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("account_pending");
    } finally {
      await pending.close();
    }
  });
});

describe("POST /api/me/password", () => {
  it("answers 401 without credentials", async () => {
    const res = await new Client(server.url).post("/api/me/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.status).toBe(401);
  });

  it("refuses a missing field, a weak new password and a wrong current password with 400", async () => {
    const { client } = await signedIn();
    const missing = await client.post("/api/me/password", { newPassword: NEW_PASSWORD });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields.currentPassword).toBeDefined();
    const weak = await client.post("/api/me/password", { currentPassword: PASSWORD, newPassword: "password" });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.fields.newPassword).toBeDefined();
    const wrong = await client.post("/api/me/password", { currentPassword: "not my password", newPassword: NEW_PASSWORD });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.fields.currentPassword).toBe("The current password is incorrect.");
  });

  it("guessing the current password is throttled like sign-in attempts (429)", async () => {
    const { client } = await signedIn();
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await client.post("/api/me/password", { currentPassword: `guess ${i}`, newPassword: NEW_PASSWORD })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400));
    expect(statuses[10]).toBe(429);
  });

  it("over an OAuth token: needs write:user (403 insufficient_scope), and then ends every session", async () => {
    const { client, email } = await signedIn();
    const app = await registerClient(client);
    const readOnly = await issueTokens(server, client, app, "read:user");
    const refused = await bearer(server, readOnly.access_token).post("/api/me/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("insufficient_scope");
    const writer = await issueTokens(server, client, app, "read:user write:user");
    const res = await bearer(server, writer.access_token).post("/api/me/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ signedOutSessions: 1 });
    expect((await client.get("/api/me")).status).toBe(401);
    // The token that made the change keeps working: authorized apps keep their tokens on a password change.
    expect((await bearer(server, writer.access_token).get("/api/me")).body.user.email).toBe(email);
  });

  it("sets the password, ends every other session and keeps the current one", async () => {
    const { client, email } = await signedIn();
    const other = new Client(server.url);
    expect((await other.post("/api/auth/login", { email, password: PASSWORD })).status).toBe(200);
    const third = new Client(server.url);
    expect((await third.post("/api/auth/login", { email, password: PASSWORD })).status).toBe(200);
    const res = await client.post("/api/me/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ signedOutSessions: 2 });
    expect((await client.get("/api/me")).status).toBe(200);
    expect((await other.get("/api/me")).status).toBe(401);
    expect((await third.get("/api/me")).status).toBe(401);
    expect((await new Client(server.url).post("/api/auth/login", { email, password: PASSWORD })).status).toBe(401);
    expect((await new Client(server.url).post("/api/auth/login", { email, password: NEW_PASSWORD })).status).toBe(200);
  });
});
