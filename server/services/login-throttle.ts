// Sign-in throttling. Rules:
// - every attempt counts BEFORE its password is checked, atomically (CounterStore.increment), so parallel
//   guesses cannot all be checked against one stale count: past a limit, the attempt is refused unchecked.
// - the tight limit is per account AND address: an attacker's failures lock out the attacker's address
//   for that account, not the account's owner signing in from elsewhere.
// - per address (across accounts) against one address spraying many accounts; and a much higher
//   per-account ceiling against guessing spread over many addresses.
// - a successful sign-in clears its account-and-address count.
// - the refusal that trips a limit says so (`tripped`), so that it is audited once, not every refused guess.
import { RateLimitedError } from "../errors.ts";
import type { CounterStore } from "../platform/ratelimit/index.ts";

const WINDOW_MS = 15 * 60 * 1000;
export const LOGIN_ATTEMPTS = { accountAndAddress: 10, address: 100, account: 300 };

export class SignInThrottledError extends RateLimitedError {
  constructor(
    retryAfterSeconds: number,
    /** This attempt is the first one past a limit in its window. */
    readonly tripped: boolean,
  ) {
    super(retryAfterSeconds, `Too many sign-in attempts. Try again in ${Math.ceil(retryAfterSeconds / 60)} minutes, or reset your password.`);
  }
}

export function createLoginThrottle(counters: CounterStore) {
  return {
    /** Counts one attempt at `email` from `ip`; throws 429 when any of its limits is passed. */
    async attempt(email: string, ip: string | undefined) {
      const address = ip ?? "unknown";
      const limits: [string, number][] = [
        [`login:pair:${address}:${email}`, LOGIN_ATTEMPTS.accountAndAddress],
        [`login:ip:${address}`, LOGIN_ATTEMPTS.address],
        [`login:account:${email}`, LOGIN_ATTEMPTS.account],
      ];
      const counts = await Promise.all(limits.map(([key]) => counters.increment(key, WINDOW_MS)));
      const over = counts.filter((counter, i) => counter.count > limits[i][1]);
      if (over.length) {
        const resetAt = Math.max(...over.map((counter) => counter.resetAt));
        const wait = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
        const tripped = counts.some((counter, i) => counter.count === limits[i][1] + 1);
        throw new SignInThrottledError(wait, tripped);
      }
      return { succeeded: () => counters.reset(limits[0][0]) };
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
