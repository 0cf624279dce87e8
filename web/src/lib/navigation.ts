// Where the sign-in flow sends people: to /login remembering the page they wanted, and back there after.
export const SESSION_DEPENDENCY = "app:session";
/** Home decides where someone lands: the apps page while they have none, else their account ((app)/+page.ts). */
const HOME = "/";

export function loginUrl(wanted: URL): string {
  const target = wanted.pathname + wanted.search;
  return target === HOME || target === "/account" ? "/login" : `/login?next=${encodeURIComponent(target)}`;
}

/** As long as the server ever sends (server/oauth/session.ts). */
const MAX_NEXT_LENGTH = 16384;

/** The page to open after signing in: the remembered one if it is a relative path on this site, else home. */
export function afterSignIn(url: URL): string {
  const wanted = url.searchParams.get("next");
  // A path with one leading slash, never a URL (not even of this site), and not "//host" or "/\host".
  if (!wanted || wanted.length > MAX_NEXT_LENGTH || !/^\/(?![/\\])/.test(wanted)) return HOME;
  // Resolve it as the browser would (a stray tab or backslash further on can still lead off the site) and keep only local paths.
  const target = new URL(wanted, url.origin);
  return target.origin === url.origin ? target.pathname + target.search + target.hash : HOME;
}

/** Carries the remembered page across the links between the sign-in and sign-up pages. */
export function withRedirect(path: string, url: URL): string {
  const wanted = url.searchParams.get("next");
  return wanted ? `${path}?next=${encodeURIComponent(wanted)}` : path;
}
