// Which requests belong to a deployed app: those whose Host is exactly one label in front of APPS_DOMAIN
// (any port, any case). Everything else, the platform's own hostname included, is the platform's.

/** A DNS label, lowercase: app slugs (and preview slugs) are all of this shape. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export type HostMatch = { app: false } | { app: true; slug: string | null };

const PLATFORM: HostMatch = { app: false };

/**
 * Returns a matcher for Host headers. `slug` is null for an app-shaped host whose label is no valid slug
 * (answered 404 without a lookup). `platformHostname` (from PUBLIC_URL) is never an app host, even when
 * APPS_DOMAIN is its parent domain.
 */
export function hostMatcher(appsDomain: string, platformHostname: string): (host: string | undefined) => HostMatch {
  const suffix = `.${appsDomain.toLowerCase()}`;
  const platform = platformHostname.toLowerCase();
  return (host) => {
    if (!host || host.charCodeAt(0) === 91 /* "[": IPv6 literal */) return PLATFORM;
    const colon = host.lastIndexOf(":");
    let name = (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
    if (name.endsWith(".")) name = name.slice(0, -1);
    if (name.length <= suffix.length || !name.endsWith(suffix) || name === platform) return PLATFORM;
    const label = name.slice(0, name.length - suffix.length);
    if (label.includes(".")) return PLATFORM;
    return { app: true, slug: LABEL.test(label) ? label : null };
  };
}

/** The hostname of a Host header, lowercase, without port or trailing dot; null for none or an IPv6 literal. */
export function hostName(host: string | undefined): string | null {
  if (!host || host.charCodeAt(0) === 91 /* "[" */) return null;
  const colon = host.lastIndexOf(":");
  const name = (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
  return name.endsWith(".") ? name.slice(0, -1) : name;
}
