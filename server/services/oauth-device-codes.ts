// The device authorization grant (RFC 8628): a device gets a device_code to poll with and a short
// user_code that its user types in a browser. Rules:
// - user_code: 8 letters of BCDFGHJKLMNPQRSTVWXZ (no vowels, no look-alikes), shown XXXX-XXXX, matched
//   ignoring case and punctuation; stored normalised (8 letters), the device_code only as a hash.
// - polling: `authorization_pending` until the user decides; polling again within `interval` seconds
//   answers `slow_down` and adds 5 s to the interval; `access_denied`, `expired_token`; an approved code
//   yields tokens exactly once.
// - code entry is throttled per user and per address, so codes cannot be guessed by brute force: every
//   code typed counts before it is looked up (atomically, in a sliding window), so parallel guesses cannot
//   slip past the limit, nor a burst at the turn of a window.
import { randomInt } from "node:crypto";
import type { Db } from "../db/client.ts";
import {
  AccessDeniedError,
  AuthorizationPendingError,
  ExpiredTokenError,
  InvalidGrantError,
  RateLimitedError,
  SlowDownError,
} from "../errors.ts";
import { hashToken, randomToken } from "../auth/secrets.ts";
import type { CounterStore } from "../platform/ratelimit/index.ts";

export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
export const DEVICE_CODE_TTL_SECONDS = 15 * 60;
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
const SLOW_DOWN_STEP_SECONDS = 5;

const ENTRY_WINDOW_MS = 15 * 60 * 1000;
const ENTRY_ATTEMPTS = { user: 10, address: 30 };

/** "bcdf-ghjk", "BCDF GHJK" and "bcdfghjk" are the same code; anything else is not a code. */
export function normalizeUserCode(input: string): string | null {
  const letters = input.toUpperCase().replace(/[^A-Z]/g, "");
  return letters.length === 8 && [...letters].every((c) => USER_CODE_ALPHABET.includes(c)) ? letters : null;
}

export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

function newUserCode(): string {
  return Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join("");
}

export function createOAuthDeviceCodeService(deps: { db: Db; counters: CounterStore }) {
  const { db, counters } = deps;

  return {
    /** Starts a device authorization for a client (its database id) and the validated scopes. */
    async start(clientId: string, scope: string[]) {
      const deviceCode = randomToken(32);
      const expiresAt = new Date(Date.now() + DEVICE_CODE_TTL_SECONDS * 1000);
      for (let attempt = 0; ; attempt++) {
        const userCode = newUserCode();
        try {
          await db.oAuthDeviceCode.create({
            data: { deviceCodeHash: hashToken(deviceCode), userCode, clientId, scope: scope.join(" "), interval: DEVICE_POLL_INTERVAL_SECONDS, expiresAt },
          });
          return { deviceCode, userCode: formatUserCode(userCode), expiresIn: DEVICE_CODE_TTL_SECONDS, interval: DEVICE_POLL_INTERVAL_SECONDS };
        } catch (error) {
          if (attempt >= 3) throw error; // 20^8 codes: a collision even once is unlikely
        }
      }
    },

    /** Counts one code typed by this user from this address; 429 once either has typed too many in the window. */
    async countEntryAttempt(userId: string, ip: string | undefined) {
      const limits: [string, number][] = [[`device-entry:user:${userId}`, ENTRY_ATTEMPTS.user]];
      if (ip) limits.push([`device-entry:ip:${ip}`, ENTRY_ATTEMPTS.address]);
      // One after the other: a code the user may not type does not count against the address.
      for (const [key, limit] of limits) {
        const take = await counters.take(key, { limit, windowMs: ENTRY_WINDOW_MS });
        if (take.allowed) continue;
        const wait = Math.max(1, Math.ceil((take.retryAt - Date.now()) / 1000));
        throw new RateLimitedError(wait, `Too many codes entered. Try again in ${Math.ceil(wait / 60)} minutes.`);
      }
    },

    /** The pending, unexpired device authorization a typed code names, with its client. */
    async findPending(input: string) {
      const userCode = normalizeUserCode(input);
      if (!userCode) return null;
      const row = await db.oAuthDeviceCode.findUnique({
        where: { userCode },
        include: { client: { select: { id: true, clientId: true, name: true, description: true } } },
      });
      if (!row || row.status !== "PENDING" || row.expiresAt <= new Date()) return null;
      return { ...row, userCode: formatUserCode(row.userCode) };
    },

    /** Records the user's decision; false when the code was decided, used or expired meanwhile. */
    async decide(id: string, userId: string, approve: boolean): Promise<boolean> {
      const { count } = await db.oAuthDeviceCode.updateMany({
        where: { id, status: "PENDING", expiresAt: { gt: new Date() } },
        data: { status: approve ? "APPROVED" : "DENIED", userId },
      });
      return count === 1;
    },

    /** One poll of the token endpoint by the client (database id): the grant once approved, else an RFC 8628 error. */
    async poll(deviceCode: string, clientId: string) {
      const row = await db.oAuthDeviceCode.findUnique({
        where: { deviceCodeHash: hashToken(deviceCode) },
        include: { user: { select: { id: true, role: true, status: true } } },
      });
      if (!row || row.clientId !== clientId || row.status === "USED") throw new InvalidGrantError("The device_code is invalid or was already used.");
      if (row.expiresAt <= new Date()) throw new ExpiredTokenError("The device code expired. Start a new device authorization.");
      if (row.status === "DENIED") throw new AccessDeniedError("The user denied the authorization request.");
      if (row.status === "PENDING") {
        const now = new Date();
        const tooSoon = row.lastPolledAt !== null && now.getTime() - row.lastPolledAt.getTime() < row.interval * 1000;
        const interval = tooSoon ? row.interval + SLOW_DOWN_STEP_SECONDS : row.interval;
        await db.oAuthDeviceCode.update({ where: { id: row.id }, data: { lastPolledAt: now, interval } });
        if (tooSoon) throw new SlowDownError(`Polling too fast: wait at least ${interval} seconds between requests.`);
        throw new AuthorizationPendingError("The user has not yet approved the request. Keep polling.");
      }
      const { count } = await db.oAuthDeviceCode.updateMany({ where: { id: row.id, status: "APPROVED" }, data: { status: "USED" } });
      if (count !== 1 || !row.user) throw new InvalidGrantError("The device_code is invalid or was already used.");
      return { user: row.user, scope: row.scope.split(" ").filter(Boolean), deviceCodeId: row.id };
    },
  };
}

export type OAuthDeviceCodeService = ReturnType<typeof createOAuthDeviceCodeService>;
