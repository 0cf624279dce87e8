// Which requests belong to a deployed app: those whose Host is exactly one label in front of APPS_DOMAIN
// (any port, any case). The platform answers only on its own hostname (PUBLIC_URL's) and the loopback names
// used in development; any other hostname (a removed custom domain, a stray DNS record) gets the 404 page.

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

/** Loopback names the platform always answers on (development, health checks on the machine itself). */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1"]);

/** Whether a Host header names the platform: PUBLIC_URL's hostname or a loopback name, any port, case or trailing dot. */
export function platformHostMatcher(platformHostname: string): (host: string | undefined) => boolean {
  const platform = platformHostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return (host) => {
    if (!host) return false;
    let name: string;
    if (host.charCodeAt(0) === 91 /* "[" */) {
      const end = host.indexOf("]");
      if (end === -1) return false;
      name = host.slice(1, end).toLowerCase();
    } else name = hostName(host)!;
    return name === platform || LOOPBACK.has(name);
  };
}
