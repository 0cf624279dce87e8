// The CDN in Chromium against the real server (serving web/build: run `npm run build:web` first): the dashboard
// page (upload by picker and by drop with progress, the storage meter, copying a public URL, opening it, deleting
// after a confirmation), and uploaded HTML that tries to run script: opened or framed, it never runs.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signUpOn } from "../helpers/browser.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { uploadFile } from "../cdn/helpers.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

let server: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

async function newContext(options: Parameters<Browser["newContext"]>[0] = {}) {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1200, height: 900 }, ...options });
  contexts.push(context);
  return context;
}

async function signUp(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await signUpOn(page, "cdn");
  return page;
}

describe("the CDN page", () => {
  it("uploads a chosen and a dropped file, copies a public URL that opens for anyone, and deletes after confirming", async () => {
    const context = await newContext();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const page = await signUp(context);
    await page.getByRole("link", { name: "CDN" }).first().click();
    await page.waitForURL("**/cdn");
    const storage = page.getByRole("region", { name: "CDN storage" });
    expect(await storage.innerText()).toMatch(/Storage\s+0 B of 100 MiB used/);
    const files = page.getByRole("region", { name: "Files" });
    await files.getByText("No files yet").waitFor();

    // Chosen: the progress shows, then the file is listed and counted.
    const text = "Hello from the dashboard! ".repeat(4000);
    await page.locator("#cdn-file").setInputFiles({ name: "hello.txt", mimeType: "text/plain", buffer: Buffer.from(text) });
    const row = files.getByRole("row", { name: /hello\.txt/ });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/hello\.txt\s+101\.6 KiB\s+text\/plain/);
    await expect.poll(() => storage.innerText()).toMatch(/101\.6 KiB of 100 MiB used/);

    // Dropped.
    const dataTransfer = await page.evaluateHandle(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(["{\"dropped\":true}"], "data.json", { type: "application/json" }));
      return transfer;
    });
    await page.getByRole("group", { name: "Upload" }).dispatchEvent("drop", { dataTransfer });
    await files.getByRole("row", { name: /data\.json/ }).waitFor();
    await page.screenshot({ path: "/tmp/cdn-page.png", fullPage: true });

    // Copy the public URL and open it in a browser that is not signed in.
    await row.getByRole("button", { name: "Copy URL of hello.txt" }).click();
    await row.getByRole("button", { name: "Copied of hello.txt" }).waitFor();
    const url = await page.evaluate(() => navigator.clipboard.readText());
    expect(url).toMatch(new RegExp(`^${server.url}/api/cdn/\\w+$`));
    const stranger = await (await newContext()).newPage();
    const answer = await stranger.goto(url);
    expect(answer?.status()).toBe(200);
    expect(new URL(stranger.url()).pathname).toMatch(/^\/cdn\/\w+\/text\/plain\/[0-9a-f]{64}\/hello\.txt$/);
    expect(await stranger.locator("body").textContent()).toBe(text);

    // Delete, after confirming: the address stops answering.
    await row.getByRole("button", { name: "Delete hello.txt" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Delete hello.txt?" });
    await dialog.getByRole("button", { name: "Delete file" }).click();
    await row.waitFor({ state: "detached" });
    expect((await fetch(url, { redirect: "manual" })).status).toBe(404);
    await expect.poll(() => storage.innerText()).toMatch(/16 B of 100 MiB used/);
  });

  it("lists 100 files, and Load more appends the rest, moves the focus to the first of them and goes away", async () => {
    const page = await signUp(await newContext());
    // 102 files, oldest first: f-000.txt … f-101.txt.
    const names = Array.from({ length: 102 }, (_, i) => `f-${String(i).padStart(3, "0")}.txt`);
    const ids: string[] = [];
    for (const name of names) {
      const res = await page.request.post("/api/cdn", { multipart: { file: { name, mimeType: "text/plain", buffer: Buffer.from(name) } }, headers: { origin: server.url } });
      expect(res.status()).toBe(201);
      ids.push((await res.json()).id);
    }
    await page.goto("/cdn");
    const files = page.getByRole("region", { name: "Files" });
    const rows = files.locator("tbody tr");
    const more = files.getByRole("button", { name: "Load 100 more files" });
    await more.waitFor();
    expect(await rows.count()).toBe(100);
    expect(await files.getByRole("row", { name: /f-001\.txt/ }).count()).toBe(0);

    await more.click();
    await more.waitFor({ state: "detached" });
    expect(await rows.count()).toBe(102);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.id))).toEqual(ids.toReversed().map((id) => `file-${id}`));
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`file-${ids[1]}`);

    // A file of the second page can be deleted; the list then starts again from the first page.
    await files.getByRole("button", { name: "Delete f-000.txt" }).click();
    await page.getByRole("alertdialog", { name: "Delete f-000.txt?" }).getByRole("button", { name: "Delete file" }).click();
    await more.waitFor();
    expect(await rows.count()).toBe(100);
    await more.click();
    await more.waitFor({ state: "detached" });
    expect(await rows.count()).toBe(101);
    expect(await files.getByRole("row", { name: /f-000\.txt/ }).count()).toBe(0);
  });

  it("says why an upload is refused: larger than the upload limit", async () => {
    const context = await newContext();
    const page = await signUp(context);
    await page.goto("/cdn");
    const huge = path.join(os.tmpdir(), `huge-${process.pid}.bin`);
    fs.writeFileSync(huge, "");
    fs.truncateSync(huge, 51 * 1024 * 1024);
    await page.locator("#cdn-file").setInputFiles(huge);
    fs.rmSync(huge);
    await page.getByText(/^huge-\d+\.bin is 51 MiB, more than your upload limit of 50 MiB\.$/).waitFor();
  });
});

describe("uploaded HTML", () => {
  let listener: http.Server;
  let hits: string[];
  let listenerUrl: string;

  beforeAll(async () => {
    hits = [];
    listener = http.createServer((req, res) => {
      if (req.url?.startsWith("/frame")) {
        const src = new URL(req.url, "http://x").searchParams.get("src")!;
        res.setHeader("content-type", "text/html");
        return res.end(`<!doctype html><title>host</title><iframe src="${src}"></iframe><iframe src="${src}" sandbox="allow-scripts"></iframe>`);
      }
      if (req.url === "/favicon.ico") return res.writeHead(404).end();
      hits.push(req.url ?? "");
      res.setHeader("access-control-allow-origin", "*");
      res.end("ok");
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  function evil(kind: string) {
    const script = `document.title = "pwned"; fetch("${listenerUrl}/fetch-${kind}"); new Image().src = "${listenerUrl}/img-${kind}"; try { parent.document.title = "pwned"; } catch (e) {}`;
    if (kind === "svg") return `<svg xmlns="http://www.w3.org/2000/svg" onload='${script}'><script>${script}</script></svg>`;
    return `<!doctype html><html><head><title>innocent</title><script>${script}</script></head><body onload='${script}'>hi</body></html>`;
  }

  it("never runs its script, opened directly or framed by another site (HTML and SVG)", async () => {
    const owner = new Client(server.url);
    await owner.signup();
    const html = (await uploadFile(owner, evil("html"), "evil.html", "text/html")).body;
    const svg = (await uploadFile(owner, evil("svg"), "evil.svg", "image/svg+xml")).body;
    const mislabelled = (await uploadFile(owner, evil("plain"), "evil.txt", "text/plain")).body;
    const context = await newContext({ acceptDownloads: true });

    for (const file of [html, svg]) {
      const page = await context.newPage();
      const download = page.waitForEvent("download");
      await page.goto(file.url).catch(() => {}); // an attachment: the navigation becomes a download
      expect((await download).suggestedFilename()).toBe(file.name);
      expect(await page.title()).not.toBe("pwned");

      const framing = await context.newPage();
      const content = await fetch(file.url, { redirect: "manual" }).then((r) => new URL(r.headers.get("location")!, server.url).toString());
      await framing.goto(`${listenerUrl}/frame?src=${encodeURIComponent(content)}`);
      await framing.waitForTimeout(1000);
      expect(await framing.title()).toBe("host");
    }

    // Served as text/plain with nosniff: shown as text, never parsed as HTML.
    const page = await context.newPage();
    await page.goto(mislabelled.url);
    expect(await page.locator("body").innerText()).toContain("<script>");
    expect(await page.title()).not.toBe("pwned");

    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hits).toEqual([]);
  });

  it("is rendered without script even when shown inline: the Content-Security-Policy sandbox alone stops it", async () => {
    const owner = new Client(server.url);
    await owner.signup();
    const html = (await uploadFile(owner, evil("inline"), "inline.html", "text/html")).body;
    const context = await newContext();
    // As a browser that ignored Content-Disposition would: every other header as served.
    await context.route("**/cdn/**", async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers["content-disposition"];
      expect(headers["content-security-policy"]).toBe("sandbox");
      await route.fulfill({ response, headers });
    });
    const page = await context.newPage();
    await page.goto(html.url);
    expect(await page.locator("body").innerText()).toBe("hi");
    await page.waitForTimeout(1000);
    expect(await page.title()).toBe("innocent");
    expect(hits).toEqual([]);
  });
});
