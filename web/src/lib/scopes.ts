// What each OAuth scope lets an app do, in the words of the consent page (server/auth/scopes.ts holds the
// originals; the schema does not carry them yet).
const DESCRIPTIONS: Record<string, string> = {
  "read:user": "See your name, email address and account details",
  "write:user": "Change your account and register OAuth apps on your behalf",
  "read:apps": "See your apps, their deployments, logs and files",
  "write:apps": "Create, deploy, stop and delete your apps, databases and files",
  admin: "Administer Slipway: users, approvals and limits",
};

/** A scope in plain words; a scope this dashboard does not know yet keeps its name. */
export function describeScope(scope: string): string {
  return DESCRIPTIONS[scope] ?? scope;
}
