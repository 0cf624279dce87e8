// App slugs (a DNS label under APPS_DOMAIN): the rule, the reserved names, what is wrong with a slug someone
// typed, and the slug they probably meant ("Hello Node" → "hello-node"). The dashboard's form suggests the
// same (web/src/lib/slug.ts; test/web/slug.test.ts keeps the two alike).
export const SLUG_PATTERN = /^[a-z][a-z0-9-]{1,38}[a-z0-9]$/;
const MAX_LENGTH = 40;
/** Names a person would take for the platform's own hosts, and the prefix preview apps are given. */
const RESERVED_SLUGS = new Set(["www", "api", "app", "apps", "admin", "dashboard", "static", "cdn", "mail", "status", "slipway"]);
const PREVIEW_PREFIX = /^pr-\d+-/;

export function isReservedSlug(slug: string): boolean {
  return RESERVED_SLUGS.has(slug) || PREVIEW_PREFIX.test(slug);
}

/** The free-to-take slug closest to `typed`, or null when none can be made from it (or it is one already). */
export function suggestSlug(typed: string): string | null {
  const slug = typed
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[\s_.]+/g, "-")
    .replace(/[^a-z0-9-]/g, "")
    .replace(/-{2,}/g, "-")
    .replace(/^[^a-z]+/, "")
    .slice(0, MAX_LENGTH)
    .replace(/-+$/, "");
  return slug !== typed && SLUG_PATTERN.test(slug) && !isReservedSlug(slug) ? slug : null;
}

/** What is wrong with `typed` as a slug, as a sentence: `"Hello Node" has capital letters and spaces.`; null when nothing is. */
export function slugProblems(typed: string): string | null {
  const has: string[] = [];
  if (/[A-Z]/.test(typed)) has.push("capital letters");
  if (/\s/.test(typed)) has.push("spaces");
  const others = [...new Set(typed.replace(/[A-Za-z0-9\s-]/g, ""))];
  if (others.length) has.push(others.map((c) => `"${c}"`).join(" "));
  const problems = has.length ? [`has ${andList(has)}`] : [];
  if (typed.length < 3) problems.push("is shorter than 3 characters");
  if (typed.length > MAX_LENGTH) problems.push(`is longer than ${MAX_LENGTH} characters`);
  if (typed && !/^[A-Za-z]/.test(typed)) problems.push("does not start with a letter");
  if (typed.endsWith("-")) problems.push("ends with a hyphen");
  return problems.length ? `${JSON.stringify(typed)} ${andList(problems)}.` : null;
}

function andList(items: string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
