// What a registered OAuth client may hold: its name, description, homepage and redirect URIs. Every bad
// redirect URI is named in one answer, so a developer fixes them all at once.
import type { Check } from "./validation.ts";

export const MAX_REDIRECT_URIS = 10;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** RFC 3986 characters only (ASCII: unreserved, reserved, and "%" starting a percent-encoded octet). */
const RFC3986_URI = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;

/** The URI as a browser would send it (non-ASCII percent-encoded, IDN hosts in xn-- form), when that is RFC 3986. */
function encodedForm(value: string): string | null {
  try {
    const href = new URL(value).href;
    return RFC3986_URI.test(href) && href !== value ? href : null;
  } catch {
    return null;
  }
}

const isLoopback = (url: URL) => LOOPBACK_HOSTS.has(url.hostname) || url.hostname.endsWith(".localhost");

/**
 * A redirect URI is used exactly as registered, in a Location header, so it must be a plain RFC 3986 URI:
 * ASCII, percent-encoded, absolute; https, or plain http only for loopback (CLIs, local development);
 * no fragment (RFC 6749 §3.1.2), no credentials, no wildcard (matching is exact, never by pattern).
 */
export function redirectUriProblem(value: string): string | null {
  if (value.includes("*")) return `"${value}" contains a wildcard (*): wildcards are not supported, register each redirect URI exactly as it is used.`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not an absolute URL.`;
  }
  if (!RFC3986_URI.test(value)) {
    const encoded = encodedForm(value);
    return `"${value}" must be an RFC 3986 URI: ASCII only, with other characters percent-encoded${encoded ? ` (register "${encoded}")` : ""}.`;
  }
  if (value.includes("#")) return `"${value}" must not contain a fragment (#).`;
  if (url.username || url.password) return `"${value}" must not contain credentials.`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopback(url)) return null;
  return `"${value}" must use https (http is only allowed for localhost and loopback addresses).`;
}

/** A homepage people may follow from the consent page: https (http for loopback), no credentials. */
export function homepageProblem(value: unknown): string | null {
  if (value == null || value === "") return null;
  const invalid = "Give the homepage as an https URL of at most 2000 characters, like https://example.com.";
  if (typeof value !== "string" || value.length > 2000) return invalid;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return invalid;
  }
  if (url.username || url.password) return "The homepage URL must not contain credentials.";
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url))) return null;
  return invalid;
}

export const clientRules = {
  name: (v) => (typeof v !== "string" || !v.trim() || v.length > 100 ? "Give the app a name of 1 to 100 characters." : null),
  description: (v) => (v != null && (typeof v !== "string" || v.length > 500) ? "Use at most 500 characters." : null),
  homepageUrl: homepageProblem,
  redirectUris: (v) => {
    if (!Array.isArray(v)) return "Give a list of redirect URIs.";
    if (v.length > MAX_REDIRECT_URIS) return `Register at most ${MAX_REDIRECT_URIS} redirect URIs.`;
    if (v.some((u) => typeof u !== "string" || u.length > 2000)) return "Each redirect URI must be a URL of at most 2000 characters.";
    const problems = v.map((u: string) => redirectUriProblem(u)).filter(Boolean);
    if (!problems.length) return null;
    return problems.length === 1 ? problems[0] : `${problems.length} redirect URIs need fixing: ${problems.join(" ")}`;
  },
} satisfies Record<string, Check>;
