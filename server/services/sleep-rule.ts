// FORCED_SLEEP_AFTER_MINUTES: on a platform that sets it, apps of accounts on the default limits sleep after at
// most that long idle (a free tier's rule); an account whose limits an administrator raised is free of it. New apps
// start with it, a longer time or "never" is refused, and the leader brings existing apps under it at boot.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { InvalidRequestError } from "../errors.ts";
import type { AccountService } from "./accounts.ts";
import { quotaRaised } from "./quota-limits.ts";

export function createSleepRule(deps: { db: Db; config: Config; accounts: Pick<AccountService, "quotaOf"> }) {
  const forced = deps.config.forcedSleepAfterMinutes;
  const { defaultQuota } = deps.config;

  /** The rule's minutes for this owner, or null when the rule does not apply to them. */
  async function limitFor(ownerId: string): Promise<number | null> {
    if (forced === null) return null;
    return quotaRaised(await deps.accounts.quotaOf(ownerId), defaultQuota) ? null : forced;
  }

  return {
    async forNewApp(ownerId: string): Promise<number | null> {
      const limit = await limitFor(ownerId);
      const wanted = deps.config.defaultSleepAfterMinutes;
      return limit === null ? wanted : Math.min(wanted ?? limit, limit);
    },

    /** The minutes asked for, if the rule allows them for this owner (400 naming the field otherwise). */
    async check(ownerId: string, minutes: number | null): Promise<number | null> {
      const limit = await limitFor(ownerId);
      if (limit === null || (minutes !== null && minutes <= limit)) return minutes;
      const message = `Apps of accounts on the default limits sleep after at most ${limit} minutes idle on this platform. Use ${limit} or fewer, or ask for higher limits to keep an app awake longer.`;
      throw new InvalidRequestError(`sleepAfterMinutes: ${message}`, { sleepAfterMinutes: message });
    },

    /** Apps the rule covers that sleep later than it allows, or never: brought under it. Their ids. */
    async enforce(): Promise<string[]> {
      if (forced === null) return [];
      const apps = await deps.db.app.findMany({
        where: { OR: [{ sleepAfterMinutes: null }, { sleepAfterMinutes: { gt: forced } }] },
        select: { id: true, ownerId: true },
      });
      const owners = [...new Set(apps.map((app) => app.ownerId))];
      const covered = new Set<string>();
      for (const owner of owners) if ((await limitFor(owner)) !== null) covered.add(owner);
      const ids = apps.filter((app) => covered.has(app.ownerId)).map((app) => app.id);
      if (ids.length) await deps.db.app.updateMany({ where: { id: { in: ids } }, data: { sleepAfterMinutes: forced } });
      return ids;
    },
  };
}

export type SleepRule = ReturnType<typeof createSleepRule>;
