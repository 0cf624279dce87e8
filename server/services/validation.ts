// Field checks shared by services; each returns a message a person can act on, or null.
import { passwordProblem } from "../auth/password-policy.ts";
import { InvalidRequestError, type FieldErrors } from "../errors.ts";

export type Check = (value: unknown) => string | null;

export const HANDLE_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,37}[a-z0-9])?$/;
const EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

export const checks = {
  email: (v: unknown) =>
    typeof v !== "string" || v.length > 254 || !EMAIL_PATTERN.test(v) ? "Enter a valid email address, like ada@example.com." : null,
  /** A new password: long enough and hard to guess, also from the account's own email and name. */
  newPassword: (...userInputs: unknown[]): Check => (v) => passwordProblem(v, userInputs.filter((i): i is string => typeof i === "string")),
  handle: (v: unknown) =>
    typeof v !== "string" || !HANDLE_PATTERN.test(v)
      ? "Use 1 to 39 lowercase letters, digits or hyphens, starting and ending with a letter or digit."
      : null,
} satisfies Record<string, Check | ((...args: never[]) => Check)>;

/** Runs every check and throws one InvalidRequestError listing all bad fields. */
export function validate(input: Record<string, unknown>, rules: Record<string, Check>): void {
  const fields: FieldErrors = {};
  for (const [field, check] of Object.entries(rules)) {
    const problem = check(input[field]);
    if (problem) fields[field] = problem;
  }
  const bad = Object.keys(fields);
  if (bad.length) throw new InvalidRequestError(`Check ${bad.join(", ")}: ${Object.values(fields)[0]}`, fields);
}

/** Prisma's unique-constraint violation, with the fields it names (both providers). */
export function uniqueViolation(error: unknown): string[] | null {
  const e = error as { code?: string; meta?: { target?: unknown; driverAdapterError?: { cause?: { constraint?: { fields?: string[] } } } } };
  if (e?.code !== "P2002") return null;
  const target = e.meta?.target;
  if (Array.isArray(target)) return target.map(String);
  if (typeof target === "string") return [target];
  return e.meta?.driverAdapterError?.cause?.constraint?.fields ?? [];
}
