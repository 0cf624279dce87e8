// Accounts for the admin tests: an administrator (promoted the way `npm run admin` does), and users in each state.
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";

export async function signedUp(server: TestServer) {
  const client = new Client(server.url);
  const account = await client.signup();
  return { client, ...account };
}

export async function admin(server: TestServer) {
  const account = await signedUp(server);
  await server.slipway.platform.services.accounts.setRole(account.email, "ADMIN");
  return account;
}

/** A user whose status is set directly in the database (PENDING or SUSPENDED), as an earlier decision would leave it. */
export async function withStatus(server: TestServer, status: "ACTIVE" | "PENDING" | "SUSPENDED", role: "USER" | "ADMIN" = "USER") {
  const account = await signedUp(server);
  await server.slipway.platform.db.user.update({ where: { id: account.user.id }, data: { status, role } });
  return account;
}
