// Sign-up, sign-in and the account record. Shared by GraphQL resolvers (and so REST) and later the
// OAuth sign-in page.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { AccountSuspendedError, ConflictError, InvalidCredentialsError } from "../errors.ts";
import { hashPassword, verifyAgainstNothing, verifyPassword } from "../auth/password.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { ReadCache } from "../platform/read-cache.ts";
import type { AuditService } from "./audit.ts";
import type { EmailVerificationService } from "./email-verification.ts";
import { SignInThrottledError, type LoginThrottle } from "./login-throttle.ts";
import type { SessionMeta, SessionService } from "./sessions.ts";
import { accountTopic } from "./topics.ts";
import { checks, uniqueViolation, validate } from "./validation.ts";

export interface SignupInput {
  email: string;
  password: string;
  name: string;
}

export interface LoginInput {
  email: string;
  password: string;
}

export function createAccountService(deps: {
  db: Db;
  config: Config;
  pubsub: PubSub;
  cache: ReadCache;
  sessions: SessionService;
  throttle: LoginThrottle;
  verification: EmailVerificationService;
  audit: AuditService;
}) {
  const { db, config, pubsub, cache, sessions, throttle, verification, audit } = deps;

  async function loadQuota(userId: string) {
    const [quota, apps, databases, cdn, widest] = await Promise.all([
      db.quota.findUnique({ where: { userId } }),
      db.app.count({ where: { ownerId: userId, previewOfId: null } }),
      db.resource.count({ where: { app: { ownerId: userId } } }),
      db.file.aggregate({ where: { ownerId: userId }, _sum: { size: true } }),
      db.app.aggregate({ where: { ownerId: userId }, _max: { instances: true } }),
    ]);
    // Every account gets its quota row at sign-up; the defaults cover a row lost to manual edits.
    return { userId, ...config.defaultQuota, ...quota, usage: { apps, databases, instances: widest._max.instances ?? 0, cdnBytes: cdn._sum.size ?? 0n } };
  }
  type QuotaRecord = Awaited<ReturnType<typeof loadQuota>>;
  const quotaKey = (userId: string) => `quota:${userId}`;

  const loadUser = (userId: string) => db.user.findUniqueOrThrow({ where: { id: userId } });
  type UserRecord = Awaited<ReturnType<typeof loadUser>>;
  const userKey = (userId: string) => `user:${userId}`;

  return {
    async signup(input: SignupInput, meta: SessionMeta) {
      validate(input as unknown as Record<string, unknown>, {
        email: checks.email,
        password: checks.newPassword(input.email, input.name),
        name: checks.handle,
      });
      const email = input.email.trim().toLowerCase();
      const taken = await db.user.findFirst({ where: { OR: [{ email }, { name: input.name }] }, select: { email: true, name: true } });
      if (taken) throw conflictFor(taken.email === email ? ["email"] : ["name"]);
      const passwordHash = await hashPassword(input.password);
      try {
        const user = await db.user.create({
          data: {
            email,
            name: input.name,
            passwordHash,
            // ADMIN_EMAILS applies once the address is verified (email-verification.ts), not to whoever signs up first.
            role: "USER",
            status: config.requireApproval ? "PENDING" : "ACTIVE",
            quota: { create: { ...config.defaultQuota } },
          },
        });
        await verification.sendLink(user);
        return { user, session: await sessions.start(user.id, meta) };
      } catch (error) {
        const fields = uniqueViolation(error);
        if (fields) throw conflictFor(fields.includes("email") ? ["email"] : ["name"]);
        throw error;
      }
    },

    async login(input: LoginInput, meta: SessionMeta) {
      validate(input as unknown as Record<string, unknown>, {
        email: (v) => (typeof v === "string" && v.trim() ? null : "Enter your email address."),
        password: (v) => (typeof v === "string" && v ? null : "Enter your password."),
      });
      const email = input.email.trim().toLowerCase();
      const attempt = await throttle.attempt(email, meta.ip).catch(async (error: unknown) => {
        if (error instanceof SignInThrottledError && error.tripped) {
          const known = await db.user.findUnique({ where: { email }, select: { id: true } });
          await audit.record({ actor: null, action: "auth.sign_in_throttled", target: known ? { type: "user", id: known.id } : undefined, details: { email }, ip: meta.ip });
        }
        throw error;
      });
      const user = await db.user.findUnique({ where: { email } });
      const ok = user ? await verifyPassword(input.password, user.passwordHash) : await verifyAgainstNothing(input.password);
      if (!user || !ok) {
        // The attempted address is recorded (an email, never the password) to show who is being guessed at.
        const target = user ? { type: "user", id: user.id } : undefined;
        await audit.record({ actor: null, action: "auth.sign_in_failed", target, details: { email }, ip: meta.ip });
        throw new InvalidCredentialsError();
      }
      await attempt.succeeded();
      if (user.status === "SUSPENDED") {
        await audit.record({ actor: null, action: "auth.sign_in_refused", target: { type: "user", id: user.id }, details: { email, reason: "suspended" }, ip: meta.ip });
        throw new AccountSuspendedError();
      }
      await audit.by({ id: user.id, name: user.name, ip: meta.ip }, "auth.sign_in", { type: "user", id: user.id });
      const promoted = await verification.promoteIfListed(user);
      return { user: promoted, session: await sessions.start(user.id, meta) };
    },

    /** Operators' out-of-band role change (npm run admin): ADMIN also activates the account. Null for an unknown email. */
    async setRole(email: string, role: "ADMIN" | "USER") {
      const data = role === "ADMIN" ? { role, status: "ACTIVE" as const } : { role };
      const { count } = await db.user.updateMany({ where: { email: email.trim().toLowerCase() }, data });
      if (!count) return null;
      const user = await db.user.findUniqueOrThrow({ where: { email: email.trim().toLowerCase() } });
      await pubsub.publish(accountTopic(user.id), { userId: user.id });
      return user;
    },

    /** Tells live subscribers (the dashboard) that a user's account or quota changed. */
    async changed(userId: string) {
      await pubsub.publish(accountTopic(userId), { userId });
    },

    /** The raw stream of changes to the user's account or quota (ends at once on return()). */
    changes: (userId: string) => pubsub.subscribe(accountTopic(userId)),

    /** Yields once now and again after every change to the user's account or quota. */
    async *watch(userId: string): AsyncGenerator<void> {
      const changes = await pubsub.subscribe(accountTopic(userId));
      try {
        yield;
        for await (const _ of changes) yield;
      } finally {
        await changes.return?.();
      }
    },

    /** The quota record with what the user currently uses. */
    quotaOf(userId: string) {
      return cache.get(quotaKey(userId), () => loadQuota(userId));
    },

    /** The user's record (cached like quotaOf: every write to users clears it). */
    user(userId: string) {
      return cache.get(userKey(userId), () => loadUser(userId));
    },

    /** quotaOf's record while the cache holds it, without a promise; undefined otherwise. */
    cachedQuotaOf(userId: string): QuotaRecord | undefined {
      return cache.peek<QuotaRecord>(quotaKey(userId))?.value;
    },

    /** user's record while the cache holds it, without a promise; undefined otherwise. */
    cachedUser(userId: string): UserRecord | undefined {
      return cache.peek<UserRecord>(userKey(userId))?.value;
    },
  };
}

function conflictFor(fields: ("email" | "name")[]) {
  const messages = { email: "An account with this email already exists. Sign in instead.", name: "This name is taken. Choose another." };
  const map = Object.fromEntries(fields.map((f) => [f, messages[f]]));
  return new ConflictError(Object.values(map)[0], map);
}

export type AccountService = ReturnType<typeof createAccountService>;
