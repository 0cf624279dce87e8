// Debian's Chromium for the browser tests, headless, with the flags this machine needs: no sandbox as root,
// no background networking (the network is closed), a fresh temporary profile per launch.
import { chromium, type Browser } from "playwright-core";

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
