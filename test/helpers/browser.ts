// Debian's Chromium for the browser tests, headless, with the flags this machine needs: no sandbox as root,
// no background networking (the network is closed), a fresh temporary profile per launch.
import { chromium, type Browser, type Page } from "playwright-core";
import { uniqueName } from "./client.ts";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

/**
 * Signs a new account up through the signup form on `page` (a fresh context's) and answers its name; by default waits
 * until the app list shows, as a new user lands there.
 */
export async function signUpOn(page: Page, prefix = "dev", options: { waitForApps?: boolean } = {}): Promise<string> {
  const name = uniqueName(prefix);
  await page.goto("/signup");
  await page.getByLabel("Email", { exact: true }).fill(`${name}@example.com`);
  await page.getByLabel("Username", { exact: true }).fill(name);
  await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
  await page.getByRole("button", { name: "Create account" }).click();
  if (options.waitForApps !== false) await page.waitForURL("**/apps");
  return name;
}
