// Where the sign-in flow sends people: to /login remembering the page they wanted, and back there after.
import { goto } from "$app/navigation";

export const SESSION_DEPENDENCY = "app:session";
/** Where someone lands after signing in, and where `/` leads ((app)/+page.ts). */
export const HOME = "/apps";

export function loginUrl(wanted: URL): string {
  const target = wanted.pathname + wanted.search;
  return target === "/" ? "/login" : `/login?next=${encodeURIComponent(target)}`;
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

/** Pages the server renders itself (OAuth consent and device): a full page load, never the client router's "Not found". */
export function isServerPage(path: string): boolean {
  return path.startsWith("/oauth/");
}

/** Opens the remembered page once signed in: a server page by a full load, a dashboard page by the router. */
export async function continueAfterSignIn(url: URL): Promise<void> {
  const target = afterSignIn(url);
  if (isServerPage(target)) {
    window.location.assign(target);
    return new Promise(() => {}); // the page is being replaced
  }
  return goto(target, { invalidateAll: true });
}

/** What the sign-in page says it is for, read from `next`: an app asking for access, or a device. */
export function signInPurpose(url: URL): { clientId: string } | { device: true } | null {
  const target = afterSignIn(url);
  if (!isServerPage(target)) return null;
  const { pathname, searchParams } = new URL(target, url.origin);
  if (pathname === "/oauth/device") return { device: true };
  const clientId = searchParams.get("client_id");
  return pathname === "/oauth/authorize" && clientId ? { clientId } : null;
}
