// Sign-up, sign-in and the account record. Shared by GraphQL resolvers (and so REST) and later the
// OAuth sign-in page.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { AccountSuspendedError, ConflictError, InvalidCredentialsError, RateLimitedError } from "../errors.ts";
import { hashPassword, verifyAgainstNothing, verifyPassword } from "../auth/password.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { CounterStore } from "../platform/ratelimit/index.ts";
import type { ReadCache } from "../platform/read-cache.ts";
import type { SessionMeta, SessionService } from "./sessions.ts";
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

const LOGIN_WINDOW_MS = 15 * 60 * 1000;
const MAX_FAILURES_PER_ACCOUNT = 10;
const MAX_FAILURES_PER_ADDRESS = 50;

export function createAccountService(deps: {
  db: Db;
  config: Config;
  counters: CounterStore;
  pubsub: PubSub;
  cache: ReadCache;
  sessions: SessionService;
}) {
  const { db, config, counters, pubsub, cache, sessions } = deps;

  async function throttleLogin(email: string, ip: string | undefined) {
    const keys = [`login:account:${email}`, ...(ip ? [`login:ip:${ip}`] : [])];
    const limits = [MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ADDRESS];
    const counts = await Promise.all(keys.map((k) => counters.peek(k)));
    counts.forEach((c, i) => {
      if (c && c.count >= limits[i]) {
        const wait = Math.max(1, Math.ceil((c.resetAt - Date.now()) / 1000));
        throw new RateLimitedError(wait, `Too many failed sign-in attempts. Try again in ${Math.ceil(wait / 60)} minutes.`);
      }
    });
    return {
      failed: () => Promise.all(keys.map((k) => counters.increment(k, LOGIN_WINDOW_MS))),
      succeeded: () => counters.reset(keys[0]),
    };
  }

  /**
   * ADMIN_EMAILS also covers accounts created before their email was listed: they become ADMIN (and ACTIVE,
   * as a listed signup would be) at their next sign-in. Suspension is checked first and still wins.
   */
  async function promoteIfListed<U extends { id: string; email: string; role: string; status: string }>(user: U) {
    if (!config.adminEmails.has(user.email) || (user.role === "ADMIN" && user.status === "ACTIVE")) return user;
    const promoted = await db.user.update({ where: { id: user.id }, data: { role: "ADMIN", status: "ACTIVE" } });
    await pubsub.publish(accountTopic(user.id), { userId: user.id });
    return promoted;
  }

  return {
    async signup(input: SignupInput, meta: SessionMeta) {
      validate(input as unknown as Record<string, unknown>, { email: checks.email, password: checks.password, name: checks.handle });
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
            role: config.adminEmails.has(email) ? "ADMIN" : "USER",
            status: config.requireApproval && !config.adminEmails.has(email) ? "PENDING" : "ACTIVE",
            quota: { create: { ...config.defaultQuota } },
          },
        });
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
      const throttle = await throttleLogin(email, meta.ip);
      const user = await db.user.findUnique({ where: { email } });
      const ok = user ? await verifyPassword(input.password, user.passwordHash) : await verifyAgainstNothing(input.password);
      if (!user || !ok) {
        await throttle.failed();
        throw new InvalidCredentialsError();
      }
      await throttle.succeeded();
      if (user.status === "SUSPENDED") throw new AccountSuspendedError();
      const promoted = await promoteIfListed(user);
      return { user: promoted, session: await sessions.start(user.id, meta) };
    },

    /** Tells live subscribers (the dashboard) that a user's account or quota changed. */
    async changed(userId: string) {
      await pubsub.publish(accountTopic(userId), { userId });
    },

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
      return cache.get(`quota:${userId}`, async () => {
        const [quota, apps, databases, cdn] = await Promise.all([
          db.quota.findUnique({ where: { userId } }),
          db.app.count({ where: { ownerId: userId } }),
          db.resource.count({ where: { app: { ownerId: userId } } }),
          db.file.aggregate({ where: { ownerId: userId }, _sum: { size: true } }),
        ]);
        // Every account gets its quota row at sign-up; the defaults cover a row lost to manual edits.
        return { userId, ...config.defaultQuota, ...quota, usage: { apps, databases, cdnBytes: cdn._sum.size ?? 0n } };
      });
    },

    /** The user's record (cached like quotaOf: every write to users clears it). */
    user(userId: string) {
      return cache.get(`user:${userId}`, () => db.user.findUniqueOrThrow({ where: { id: userId } }));
    },
  };
}

const accountTopic = (userId: string) => `account:${userId}`;

function conflictFor(fields: ("email" | "name")[]) {
  const messages = { email: "An account with this email already exists. Sign in instead.", name: "This name is taken. Choose another." };
  const map = Object.fromEntries(fields.map((f) => [f, messages[f]]));
  return new ConflictError(Object.values(map)[0], map);
}

export type AccountService = ReturnType<typeof createAccountService>;
