// `npm run admin` as an operator runs it: a real process against the test server's database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminScript } from "../helpers/admin-script.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const admin = (...args: string[]) => runAdminScript({ DATABASE_URL: server.config.databaseUrl, DATA_DIR: server.config.dataDir }, ...args);

const signIn = (email: string, password: string) => new Client(server.url).post("/api/auth/login", { email, password });

// Each run starts npm and tsx: seconds on a busy machine.
describe("npm run admin", { timeout: 120_000 }, () => {
  it("promotes an account to ADMIN (and ACTIVE), then demotes it", async () => {
    const { email, password } = await new Client(server.url).signup();
    const promoted = await admin("promote", email.toUpperCase());
    expect(promoted).toMatchObject({ code: 0, stdout: expect.stringContaining(`${email}`) });
    expect(promoted.stdout).toMatch(/is now an administrator/);
    expect((await signIn(email, password)).body.user).toMatchObject({ role: "ADMIN", status: "ACTIVE" });

    const demoted = await admin("demote", email);
    expect(demoted.code).toBe(0);
    expect((await signIn(email, password)).body.user.role).toBe("USER");
  });

  it("exits 1 naming an email no account uses, and 64 with the usage for anything else", async () => {
    const unknown = await admin("promote", "nobody@example.com");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No account uses the email nobody@example.com/);
    const usage = await admin("crown", "someone@example.com");
    expect(usage.code).toBe(64);
    expect(usage.stderr).toMatch(/usage: npm run admin -- promote <email> \| demote <email> \| cluster/);
  });
});
