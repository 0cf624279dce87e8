// Account chores for tests that are not about mail: verify an address as its owner would by following
// the link, with the link's token minted by the same service that mails it (test/api/mail.test.ts reads real mail).
import { Client } from "./client.ts";
import type { TestServer } from "./server.ts";

export async function verifyEmail(server: TestServer, email: string) {
  const { db, services } = server.slipway.platform;
  const user = await db.user.findUniqueOrThrow({ where: { email: email.toLowerCase() } });
  const token = await services.accountTokens.issue(user, "VERIFY_EMAIL");
  const res = await new Client(server.url).post("/api/auth/verify", { token });
  if (res.status !== 200) throw new Error(`verification failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.user as { id: string; email: string; role: string; status: string };
}
