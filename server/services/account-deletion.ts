// Deleting one's own account. Rules:
// - the owner types their handle to confirm (400 on confirm otherwise);
// - the last active administrator cannot delete themself (409: make someone else an administrator first);
// - sessions end first, so nothing else acts for the account while it is taken apart; then every app is
//   stopped and removed through the apps service (processes, releases, env, logs, databases, previews),
//   CDN files leave the object storage, and the user row goes with everything that cascades from it:
//   OAuth clients (and every token, code and consent they hold, other users' too), the account's own OAuth
//   tokens, codes and consents, device codes, mailed links, quota and limit requests;
// - audit entries stay: they keep the actor's name as text (the entry recording the deletion included).
import type { Db } from "../db/client.ts";
import { InvalidRequestError } from "../errors.ts";
import { keepingAnAdmin, type Tx } from "./admin-left.ts";
import type { AccountService } from "./accounts.ts";
import type { AppService } from "./apps.ts";
import type { Acting, AuditService } from "./audit.ts";
import type { CdnService } from "./cdn.ts";

export function createAccountDeletionService(deps: {
  db: Db;
  apps: AppService;
  accounts: AccountService;
  cdn: CdnService;
  audit: AuditService;
}) {
  const { db, apps, accounts, cdn, audit } = deps;

  return {
    async remove(by: Acting, confirm: string) {
      const user = await db.user.findUniqueOrThrow({ where: { id: by.id } });
      if (confirm !== user.name) {
        const message = `Type your handle (${user.name}) to confirm.`;
        throw new InvalidRequestError(message, { confirm: message });
      }
      // Sessions end and the role goes in one step, so that two administrators deleting themselves at once
      // cannot both pass the last-administrator check.
      const endSessions = (tx: Tx) => tx.session.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: new Date() } });
      if (user.role !== "ADMIN") await endSessions(db);
      else {
        await keepingAnAdmin(db, "You are the last administrator: make another account an administrator before deleting yours.", async (tx) => {
          await endSessions(tx);
          await tx.user.update({ where: { id: user.id }, data: { role: "USER" } });
        });
      }
      const owned = await db.app.findMany({ where: { ownerId: user.id, previewOfId: null }, select: { slug: true } });
      for (const app of owned) await apps.remove(by, app.slug);
      // Previews of other users' apps cannot be owned by this user, but a leftover one is removed all the same.
      for (const app of await db.app.findMany({ where: { ownerId: user.id }, select: { slug: true } })) await apps.remove(by, app.slug);
      await cdn.deleteAllOf(user.id);
      // Through the token model first, so cached Bearer lookups of these tokens are cleared at once.
      await db.oAuthToken.deleteMany({ where: { OR: [{ userId: user.id }, { client: { ownerId: user.id } }] } });
      await db.user.delete({ where: { id: user.id } });
      await audit.by(by, "account.delete", { type: "user", id: user.id }, { email: user.email, apps: owned.map((a) => a.slug) });
      await accounts.changed(user.id);
      return user;
    },
  };
}

export type AccountDeletionService = ReturnType<typeof createAccountDeletionService>;
