// The slug someone probably meant ("Hello Node" → "hello-node"), offered beside the server's complaint: the same
// function as the server's (server/services/slug.ts; test/web/slug.test.ts keeps the two alike).
const SLUG_PATTERN = /^[a-z][a-z0-9-]{1,38}[a-z0-9]$/;
const MAX_LENGTH = 40;
const RESERVED_SLUGS = new Set(["www", "api", "app", "apps", "admin", "dashboard", "static", "cdn", "mail", "status", "slipway"]);
const PREVIEW_PREFIX = /^pr-\d+-/;

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
  return slug !== typed && SLUG_PATTERN.test(slug) && !RESERVED_SLUGS.has(slug) && !PREVIEW_PREFIX.test(slug) ? slug : null;
}
