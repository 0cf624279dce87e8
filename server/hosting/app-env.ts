// The apps' env vars as their processes see them, read afresh for every build and start, and what hides their
// values (the secrets) in the apps' logs: built from the last read, so new values are hidden from then on.
import type { Db } from "../db/client.ts";
import { redactorFor, type Redact } from "./logs/redact.ts";

export class AppEnv {
  private readonly redactors = new Map<string, Redact>();

  constructor(private readonly db: Db) {}

  /** The app's env vars (what its processes see), refreshing the redactor of its logs on the way. */
  async of(appId: string): Promise<Record<string, string>> {
    const vars = await this.db.envVar.findMany({ where: { appId }, select: { key: true, value: true } });
    const env = Object.fromEntries(vars.map((v) => [v.key, v.value]));
    this.redactors.set(appId, redactorFor(Object.values(env)));
    return env;
  }

  /** What hides the app's secrets in its logs (nothing until its env vars were read). */
  redactorOf(appId: string): Redact {
    return this.redactors.get(appId) ?? ((line) => line);
  }

  forget(appId: string): void {
    this.redactors.delete(appId);
  }
}
