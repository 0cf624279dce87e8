// Field rules for apps: the slug (a DNS label under APPS_DOMAIN), repository, branch and env var keys.
import type { Check } from "./validation.ts";
import { LIMIT_MAXIMA } from "./quota-limits.ts";
import { isReservedSlug, SLUG_PATTERN, slugProblems, suggestSlug } from "./slug.ts";

const GITHUB_REPO = /^(?:https:\/\/github\.com\/)?([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100}?)(?:\.git)?\/?$/;
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const MAX_ENV_VALUE = 32 * 1024;
export const MAX_ENV_VARS = 200;

/** `owner/name` from either accepted spelling, or null. */
export function normaliseRepo(value: string): string | null {
  const match = GITHUB_REPO.exec(value.trim());
  if (!match || match[2] === "." || match[2].includes("..")) return null;
  return `${match[1]}/${match[2]}`;
}

/** A branch name git accepts (git check-ref-format), conservatively. */
export function isBranchName(value: string): boolean {
  return (
    /^[A-Za-z0-9._/-]{1,100}$/.test(value) &&
    !value.startsWith("-") &&
    !value.startsWith("/") &&
    !value.endsWith("/") &&
    !value.endsWith(".lock") &&
    !value.endsWith(".") &&
    !value.includes("..") &&
    !value.includes("//")
  );
}

export function isEnvKey(key: string): boolean {
  return ENV_KEY.test(key) && key.length <= 200;
}

const SLUG_RULE = "Use 3 to 40 lowercase letters, digits or hyphens, starting with a letter and ending with a letter or digit.";

/** What is wrong with the slug and, when one can be made from it, the slug to use instead. */
function invalidSlug(v: unknown): string {
  const problems = typeof v === "string" && v ? slugProblems(v) : null;
  if (!problems) return SLUG_RULE;
  const suggestion = suggestSlug(v as string);
  return suggestion ? `${problems} Try "${suggestion}".` : problems;
}

/** The most instances any app may run, whatever its owner's quota. */
const MAX_INSTANCES = Number(LIMIT_MAXIMA.maxInstances);

/** A week: the longest an idle app waits before it sleeps. */
export const MAX_SLEEP_AFTER_MINUTES = 10_080;

export const appRules = {
  sleepAfterMinutes: (v) =>
    v != null && (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_SLEEP_AFTER_MINUTES)
      ? `Use a whole number of minutes from 1 to ${MAX_SLEEP_AFTER_MINUTES} (a week), or null for an app that never sleeps.`
      : null,
  sleepWorkers: (v) => (v != null && typeof v !== "boolean" ? "Use true or false." : null),
  slug: (v) => (typeof v !== "string" || !SLUG_PATTERN.test(v) ? invalidSlug(v) : isReservedSlug(v) ? `"${v}" is reserved: choose another slug.` : null),
  name: (v) => (v != null && (typeof v !== "string" || !v.trim() || v.length > 100) ? "Use a name of 1 to 100 characters." : null),
  description: (v) => (v != null && (typeof v !== "string" || v.length > 500) ? "Use at most 500 characters." : null),
  repo: (v) => (v != null && (typeof v !== "string" || !normaliseRepo(v)) ? "Give the repository as owner/name or https://github.com/owner/name." : null),
  branch: (v) => (v != null && (typeof v !== "string" || !isBranchName(v)) ? "Give a valid git branch name, like main." : null),
  instances: (v) =>
    v == null
      ? null
      : v === 0
        ? "Use a whole number of instances from 1 up: to run none, stop the app (POST /api/apps/:slug/stop)."
        : typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_INSTANCES
          ? `Use a whole number of instances from 1 to ${MAX_INSTANCES}.`
          : null,
} satisfies Record<string, Check>;
