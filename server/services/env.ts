// An app's environment variables. Setting or removing one restarts a running app with the new set
// (Heroku's config vars), and the values are redacted from its logs from then on.
import type { Db } from "../db/client.ts";
import { InvalidRequestError } from "../errors.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import { isEnvKey, MAX_ENV_VALUE, MAX_ENV_VARS } from "./app-rules.ts";
import type { AppService } from "./apps.ts";
import type { Acting, AuditService } from "./audit.ts";

export interface EnvVarRecord {
  key: string;
  value: string;
}

/** Names the platform sets itself. */
const PLATFORM_KEYS = new Set(["PORT"]);

export function createEnvService(deps: { db: Db; apps: AppService; engine: ClusterEngine; audit: AuditService }) {
  const { db, apps, engine, audit } = deps;
  const list = (appId: string): Promise<EnvVarRecord[]> =>
    db.envVar.findMany({ where: { appId }, orderBy: { key: "asc" }, select: { key: true, value: true } });

  function check(vars: unknown): Record<string, string> {
    if (!vars || typeof vars !== "object" || Array.isArray(vars)) {
      throw new InvalidRequestError('Send a JSON object of variables, like {"KEY": "value"}.');
    }
    const fields: Record<string, string> = {};
    for (const [key, value] of Object.entries(vars)) {
      if (!isEnvKey(key)) fields[key] = "Use letters, digits and underscores, not starting with a digit.";
      else if (PLATFORM_KEYS.has(key)) fields[key] = `${key} is set by Slipway.`;
      else if (typeof value !== "string") fields[key] = "The value must be a string.";
      else if (value.length > MAX_ENV_VALUE) fields[key] = `Use at most ${MAX_ENV_VALUE} characters.`;
      else if (value.includes("\0")) fields[key] = "The value must not contain NUL characters.";
    }
    const bad = Object.keys(fields);
    if (bad.length) throw new InvalidRequestError(`Check ${bad.join(", ")}: ${fields[bad[0]]}`, fields);
    return vars as Record<string, string>;
  }

  return {
    async list(ownerId: string, slug: string): Promise<EnvVarRecord[]> {
      return list((await apps.mine(ownerId, slug)).id);
    },

    /** Sets (adds or replaces) the given variables; answers the whole set. The audit log gets the key names only. */
    async set(by: Acting, slug: string, vars: unknown): Promise<EnvVarRecord[]> {
      const app = await apps.mine(by.id, slug);
      const entries = Object.entries(check(vars));
      const existing = new Set((await list(app.id)).map((v) => v.key));
      const total = new Set([...existing, ...entries.map(([k]) => k)]).size;
      if (total > MAX_ENV_VARS) throw new InvalidRequestError(`An app can have at most ${MAX_ENV_VARS} variables.`);
      await db.$transaction(
        entries.map(([key, value]) =>
          db.envVar.upsert({ where: { appId_key: { appId: app.id, key } }, create: { appId: app.id, key, value }, update: { value } }),
        ),
      );
      if (entries.length) {
        await audit.by(by, "env.set", { type: "app", id: app.id }, { slug: app.slug, keys: entries.map(([key]) => key) });
        await engine.envChanged(app);
      }
      return list(app.id);
    },

    /** Removes a variable; true when it existed. */
    async unset(by: Acting, slug: string, key: string): Promise<boolean> {
      const app = await apps.mine(by.id, slug);
      const { count } = await db.envVar.deleteMany({ where: { appId: app.id, key } });
      if (count) {
        await audit.by(by, "env.unset", { type: "app", id: app.id }, { slug: app.slug, keys: [key] });
        await engine.envChanged(app);
      }
      return count > 0;
    },
  };
}
