// Email verification and password reset end to end: Slipway sends through a real SMTP server started
// here, and each test reads the link from the received message and follows it as its owner would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, uniqueName } from "../helpers/client.ts";
import { linkIn, startMailbox, type Mailbox } from "../helpers/mailbox.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { bearer, issueTokens, registerClient } from "../oauth/helpers.ts";

const LISTED = "owner@example.com";
const NEW_PASSWORD = "a brand new passphrase";

let mailbox: Mailbox;
let server: TestServer;
beforeAll(async () => {
  mailbox = await startMailbox();
  server = await startServer({ SMTP_URL: mailbox.url, MAIL_FROM: "Slipway Test <robot@slipway.test>", ADMIN_EMAILS: LISTED });
});
afterAll(async () => {
  await server?.close();
  await mailbox?.close();
});

const me = (client: Client) => client.graphql("{ me { role status emailVerified } }").then((r) => r.body.data?.me);

async function resetLink(email: string) {
  const asked = await new Client(server.url).post("/api/auth/password-reset", { email });
  expect(asked.status).toBe(202);
  return linkIn(await mailbox.next(email), `${server.url}/reset-password?token=`);
}

describe("email verification", () => {
  it("mails a link to the dashboard's /verify page at sign-up; following it verifies the address, once", async () => {
    const client = new Client(server.url);
    const { email } = await client.signup();
    const mail = await mailbox.next(email);
    expect(mail).toMatchObject({ from: "\"Slipway Test\" <robot@slipway.test>", subject: "Confirm your email address for Slipway" });
    const link = linkIn(mail, `${server.url}/verify?token=`);
    expect(await me(client)).toMatchObject({ emailVerified: false });

    const verified = await new Client(server.url).post("/api/auth/verify", { token: link.searchParams.get("token") });
    expect(verified.status).toBe(200);
    expect(verified.body.user).toMatchObject({ email, role: "USER" });
    expect(await me(client)).toMatchObject({ emailVerified: true });

    const again = await new Client(server.url).post("/api/auth/verify", { token: link.searchParams.get("token") });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: "invalid_request", details: { fields: { token: expect.stringMatching(/invalid, was already used or has expired/) } } });
  });

  it("makes a listed address ADMIN when it is verified, not before", async () => {
    const client = new Client(server.url);
    await client.signup({ email: LISTED });
    expect(await me(client)).toEqual({ role: "USER", status: "ACTIVE", emailVerified: false });
    const link = linkIn(await mailbox.next(LISTED), `${server.url}/verify?token=`);
    const verified = await new Client(server.url).post("/api/auth/verify", { token: link.searchParams.get("token") });
    expect(verified.body.user).toMatchObject({ role: "ADMIN", status: "ACTIVE" });
  });

  it("refuses an unknown, an expired and a password-reset token with 400", async () => {
    const client = new Client(server.url);
    const { email, user } = await client.signup();
    const token = linkIn(await mailbox.next(email), `${server.url}/verify?token=`).searchParams.get("token")!;
    await server.slipway.platform.db.accountToken.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await client.post("/api/auth/verify", { token })).status).toBe(400);
    expect((await client.post("/api/auth/verify", { token: "made-up" })).status).toBe(400);
    const resetToken = (await resetLink(email)).searchParams.get("token");
    expect((await client.post("/api/auth/verify", { token: resetToken })).status).toBe(400);
    expect(await me(client)).toMatchObject({ emailVerified: false });
  });

  it("mails a new link to the signed-in user on request (resendVerificationEmail), and needs a session", async () => {
    const anonymous = await new Client(server.url).graphql("mutation { resendVerificationEmail { message } }");
    expect(anonymous.body.errors?.[0].extensions?.code).toBe("unauthenticated");

    const client = new Client(server.url);
    const { email } = await client.signup();
    await mailbox.next(email);
    const resent = await client.graphql("mutation { resendVerificationEmail { message } }");
    expect(resent.body.data.resendVerificationEmail.message).toContain(email);
    const link = linkIn(await mailbox.next(email), `${server.url}/verify?token=`);
    expect((await client.post("/api/auth/verify", { token: link.searchParams.get("token") })).status).toBe(200);
    const done = await client.graphql("mutation { resendVerificationEmail { message } }");
    expect(done.body.data.resendVerificationEmail.message).toMatch(/already verified/);
  });
});

describe("password reset", () => {
  it("answers 202 with the same body whether or not an account uses the address, and mails only an account", async () => {
    const { email } = await new Client(server.url).signup();
    await mailbox.next(email);
    const stranger = `${uniqueName("nobody")}@example.com`;
    const unknown = await new Client(server.url).post("/api/auth/password-reset", { email: stranger });
    const known = await new Client(server.url).post("/api/auth/password-reset", { email: email.toUpperCase() });
    expect(unknown.status).toBe(202);
    expect(known.status).toBe(202);
    expect(Object.keys(known.body)).toEqual(Object.keys(unknown.body));
    expect(known.body.message.replace(email, "X")).toBe(unknown.body.message.replace(stranger, "X"));
    const mail = await mailbox.next(email);
    expect(mail.subject).toBe("Reset your Slipway password");
    expect(mailbox.messages.some((m) => m.to === stranger)).toBe(false);
  });

  it("sets the new password from the link, signs out every session, and works once", async () => {
    const owner = new Client(server.url);
    const { email, password } = await owner.signup();
    await mailbox.next(email);
    const token = (await resetLink(email)).searchParams.get("token");

    const weak = await new Client(server.url).post("/api/auth/password-reset/confirm", { token, password: "password123" });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.fields.password).toMatch(/too easy to guess/);
    // A refused password does not use up the link.
    const reset = await new Client(server.url).post("/api/auth/password-reset/confirm", { token, password: NEW_PASSWORD });
    expect(reset.status).toBe(200);
    expect(reset.body.user.email).toBe(email);

    expect((await owner.get("/api/me")).status).toBe(401);
    expect((await new Client(server.url).post("/api/auth/login", { email, password })).status).toBe(401);
    expect((await new Client(server.url).post("/api/auth/login", { email, password: NEW_PASSWORD })).status).toBe(200);
    const replay = await new Client(server.url).post("/api/auth/password-reset/confirm", { token, password: "yet another passphrase" });
    expect(replay.status).toBe(400);
    expect(replay.body.error.details.fields).toHaveProperty("token");
  });

  it("gives a listed address back to its owner: whoever signed up first with it loses sessions and tokens, the owner is ADMIN", async () => {
    const email = "second-owner@example.com";
    const listed = await startServer({ SMTP_URL: mailbox.url, ADMIN_EMAILS: email });
    try {
      const squatting = new Client(listed.url);
      await squatting.signup({ email });
      expect(await me(squatting)).toMatchObject({ role: "USER", emailVerified: false });
      await mailbox.next(email); // the squatter cannot read this verification mail; the owner ignores it
      const tokens = await issueTokens(listed, squatting, await registerClient(squatting));

      await new Client(listed.url).post("/api/auth/password-reset", { email });
      const token = linkIn(await mailbox.next(email), `${listed.url}/reset-password?token=`).searchParams.get("token");
      const reset = await new Client(listed.url).post("/api/auth/password-reset/confirm", { token, password: NEW_PASSWORD });
      expect(reset.body.user).toMatchObject({ role: "ADMIN", status: "ACTIVE" });
      expect((await squatting.get("/api/me")).status).toBe(401);
      expect((await bearer(listed, tokens.access_token).get("/api/me")).status).toBe(401);
    } finally {
      await listed.close();
    }
  });

  it("answers 400 naming the field for a malformed address, and never for an unknown one", async () => {
    const res = await new Client(server.url).post("/api/auth/password-reset", { email: "not-an-address" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields).toHaveProperty("email");
  });
});
