// OAuth scopes and what each grants. The dashboard session holds every scope its user's role allows.
export const SCOPES = ["read:user", "write:user", "read:apps", "write:apps", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

export const DEFAULT_SCOPE: Scope = "read:user";

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  "read:user": "See your name, email address and account details",
  "write:user": "Change your account and register OAuth apps on your behalf",
  "read:apps": "See your apps, their deployments, logs and files",
  "write:apps": "Create, deploy, stop and delete your apps, databases and files",
  admin: "Administer Slipway: users, approvals and limits",
};

/** Writes are refused for accounts still waiting for approval. */
export const WRITE_SCOPES = new Set<Scope>(["write:user", "write:apps", "admin"]);

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

const ROLE_SCOPES: Record<"USER" | "ADMIN", ReadonlySet<Scope>> = {
  USER: new Set(SCOPES.filter((s) => s !== "admin")),
  ADMIN: new Set(SCOPES),
};

/** Every scope the role allows (shared sets: read-only). */
export function scopesForRole(role: "USER" | "ADMIN"): ReadonlySet<Scope> {
  return ROLE_SCOPES[role];
}

/** Parses a space-separated scope string; unknown names are returned separately. */
export function parseScope(scope: string | undefined | null): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set((scope ?? "").split(" ").filter(Boolean))];
  return { scopes: names.filter(isScope), unknown: names.filter((n) => !isScope(n)) };
}
