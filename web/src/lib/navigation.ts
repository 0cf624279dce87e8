// Where the sign-in flow sends people: to /login remembering the page they wanted, and back there after.
export const SESSION_DEPENDENCY = "app:session";
const HOME = "/account";

export function loginUrl(wanted: URL): string {
  const target = wanted.pathname + wanted.search;
  return target === "/" || target === HOME ? "/login" : `/login?next=${encodeURIComponent(target)}`;
}

/** The page to open after signing in: the remembered one if it is a path on this site, else the account. */
export function afterSignIn(url: URL): string {
  const wanted = url.searchParams.get("next");
  if (!wanted) return HOME;
  // Resolve it as the browser would ("//host", a backslash or a stray tab can lead off the site) and keep only local paths.
  const target = new URL(wanted, url.origin);
  return target.origin === url.origin ? target.pathname + target.search + target.hash : HOME;
}

/** Carries the remembered page across the links between the sign-in and sign-up pages. */
export function withRedirect(path: string, url: URL): string {
  const wanted = url.searchParams.get("next");
  return wanted ? `${path}?next=${encodeURIComponent(wanted)}` : path;
}
