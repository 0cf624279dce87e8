// `npm run admin` as an operator runs it: a real process against the test server's database.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

function admin(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: server.config.databaseUrl, DATA_DIR: server.config.dataDir, LOG_LEVEL: "silent" };
  const child = spawn("npm", ["run", "--silent", "admin", "--", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

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
