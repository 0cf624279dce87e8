// Custom domains through the API and the router: who may do what, which hostnames are refused, claims, the HTTP
// challenge fetched through the domain (resolved to 127.0.0.1 by DOMAIN_VERIFY_RESOLVE), and routing by Host
// once verified; removal and app deletion stop routing and free the hostname.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, FIXTURES, requestApp, zipFolder } from "../helpers/apps.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { bearer, issueTokens, registerClient } from "../oauth/helpers.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let dns: TestDns;
let owner: Client;
let counter = 0;
const newSlug = () => `dom-${process.pid}-${++counter}`;
const RESOLVED = ["shop.example.test", "www.example.test", "gone.example.test", "freed.example.test", "pending.example.test", "later.example.test"];

async function newApp(client = owner): Promise<string> {
  const slug = newSlug();
  const res = await client.post("/api/apps", { slug });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return slug;
}

beforeAll(async () => {
  dns = await startDns();
  server = await startServer({
    DEFAULT_MAX_APPS: "50",
    DEFAULT_REQUESTS_PER_MINUTE: "100000",
    DOMAIN_VERIFY_RESOLVE: RESOLVED.map((h) => `${h}:127.0.0.1`).join(","),
    // TXT challenges are looked up on a DNS server of the test's own (test/helpers/dns.ts).
    DOMAIN_VERIFY_DNS_SERVERS: dns.server,
  });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(async () => {
  await server.close();
  await dns.close();
});

describe("domains API: access and validation", () => {
  it("refuses anonymous callers on every route", async () => {
    const slug = await newApp();
    const anonymous = new Client(server.url);
    const attempts = await Promise.all([
      anonymous.get(`/api/apps/${slug}/domains`),
      anonymous.post(`/api/apps/${slug}/domains`, { hostname: "a.example.com" }),
      anonymous.post(`/api/apps/${slug}/domains/a.example.com/verify`),
      anonymous.request("DELETE", `/api/apps/${slug}/domains/a.example.com`),
    ]);
    expect(attempts.map((r) => r.status)).toEqual([401, 401, 401, 401]);
  });

  it("answers 404 for another user's app on every route, and never shows its domains", async () => {
    const slug = await newApp();
    expect((await owner.post(`/api/apps/${slug}/domains`, { hostname: "mine.example.com" })).status).toBe(201);
    const stranger = new Client(server.url);
    await stranger.signup();
    const attempts = await Promise.all([
      stranger.get(`/api/apps/${slug}/domains`),
      stranger.post(`/api/apps/${slug}/domains`, { hostname: "b.example.com" }),
      stranger.post(`/api/apps/${slug}/domains/mine.example.com/verify`),
      stranger.request("DELETE", `/api/apps/${slug}/domains/mine.example.com`),
    ]);
    expect(attempts.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    expect(attempts.map((r) => r.body.error.code)).toEqual(Array(4).fill("not_found"));
    expect((await owner.get(`/api/apps/${slug}/domains`)).body.map((d: { hostname: string }) => d.hostname)).toEqual(["mine.example.com"]);
  });

  it("needs read:apps to list and write:apps to change (403 insufficient_scope)", async () => {
    const slug = await newApp();
    await owner.post(`/api/apps/${slug}/domains`, { hostname: "scoped.example.com" });
    const client = await registerClient(owner);
    const readOnly = bearer(server, (await issueTokens(server, owner, client, "read:apps")).access_token);
    expect((await readOnly.get(`/api/apps/${slug}/domains`)).body).toMatchObject([{ hostname: "scoped.example.com" }]);
    const refused = await Promise.all([
      readOnly.post(`/api/apps/${slug}/domains`, { hostname: "other.example.com" }),
      readOnly.post(`/api/apps/${slug}/domains/scoped.example.com/verify`),
      readOnly.request("DELETE", `/api/apps/${slug}/domains/scoped.example.com`),
    ]);
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(Array(3).fill([403, "insufficient_scope"]));
    const userOnly = bearer(server, (await issueTokens(server, owner, client, "read:user")).access_token);
    expect((await userOnly.get(`/api/apps/${slug}/domains`)).status).toBe(403);
    const writer = bearer(server, (await issueTokens(server, owner, client, "read:apps write:apps")).access_token);
    expect((await writer.request("DELETE", `/api/apps/${slug}/domains/scoped.example.com`)).status).toBe(204);
  });

  it("answers 404 for a hostname the app does not have", async () => {
    const slug = await newApp();
    expect((await owner.request("DELETE", `/api/apps/${slug}/domains/none.example.com`)).status).toBe(404);
    expect((await owner.post(`/api/apps/${slug}/domains/none.example.com/verify`)).status).toBe(404);
  });

  it("refuses hostnames that are no domain name, or Slipway's own, naming the problem", async () => {
    const slug = await newApp();
    const cases: [unknown, RegExp][] = [
      ["", /Enter a hostname/],
      ["localhost", /at least one dot/],
      ["127.0.0.1", /not an IP address/],
      ["[::1]", /not an IP address/],
      ["1.2.3.4.5", /not an IP address/],
      ["shop.example.com:8080", /without a port/],
      ["https://shop.example.com", /without http/],
      ["shop.example.com/path", /without a path/],
      ["*.example.com", /Wildcard/],
      ["bad_name.example.com", /letters, digits and hyphens/],
      ["-dash.example.com", /letters, digits and hyphens/],
      [`${"a".repeat(64)}.example.com`, /at most 63/],
      [`${slug}.localhost`, /Names under localhost are Slipway's/],
      ["localhost.", /at least one dot/],
    ];
    for (const [hostname, message] of cases) {
      const res = await owner.post(`/api/apps/${slug}/domains`, { hostname });
      expect(res.status, String(hostname)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.details.fields.hostname, String(hostname)).toMatch(message);
    }
    const notString = await owner.post(`/api/apps/${slug}/domains`, { hostname: 42 });
    expect(notString.status).toBe(400);
    expect(notString.body.error.message).toMatch(/String/);
    // The platform's own hostname (PUBLIC_URL is http://127.0.0.1:<port> here: an IP) and the apps domain.
    const otherPort = String(await freePort());
    const platform = await startServer({ PORT: otherPort, PUBLIC_URL: `http://dash.example.org:${otherPort}`, APPS_DOMAIN: "apps.example.org" });
    try {
      const admin = new Client(platform.url.replace("dash.example.org", "127.0.0.1"));
      await admin.signup();
      expect((await admin.post("/api/apps", { slug: "own-check" })).status).toBe(201);
      for (const [hostname, message] of [["dash.example.org", /Slipway's own/], ["apps.example.org", /under apps.example.org/], ["x.apps.example.org", /under apps.example.org/]]) {
        const res = await admin.post("/api/apps/own-check/domains", { hostname });
        expect(res.status, String(hostname)).toBe(400);
        expect(res.body.error.details.fields.hostname).toMatch(message);
      }
    } finally {
      await platform.close();
    }
    expect((await owner.get(`/api/apps/${slug}/domains`)).body).toEqual([]);
  });

  it("stores the name lowercase without its trailing dot, and refuses a hostname claimed anywhere (409)", async () => {
    const slug = await newApp();
    const created = await owner.post(`/api/apps/${slug}/domains`, { hostname: "Claimed.Example.COM." });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      hostname: "claimed.example.com",
      verified: false,
      verifiedAt: null,
      certificate: "none",
      dnsRecord: { type: "CNAME", name: "claimed.example.com", value: `${slug}.localhost` },
      txtRecord: { type: "TXT", name: "_slipway-challenge.claimed.example.com" },
    });
    expect(created.body.challengeUrl).toBe(`http://claimed.example.com:${new URL(server.url).port}/.well-known/slipway-challenge/${created.body.txtRecord.value}`);
    expect(created.body.txtRecord.value).toMatch(/^[A-Za-z0-9_-]{32}$/);

    // An internationalised name is stored in its xn-- form, and is the same claim written either way.
    const idn = await owner.post(`/api/apps/${slug}/domains`, { hostname: "Bücher.example.com" });
    expect(idn.status).toBe(201);
    expect(idn.body.hostname).toBe("xn--bcher-kva.example.com");
    expect((await owner.post(`/api/apps/${slug}/domains`, { hostname: "xn--bcher-kva.example.com" })).status).toBe(409);

    const again = await owner.post(`/api/apps/${slug}/domains`, { hostname: "claimed.example.com" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
    const other = await newApp();
    expect((await owner.post(`/api/apps/${other}/domains`, { hostname: "CLAIMED.example.com" })).status).toBe(409);
    const stranger = new Client(server.url);
    await stranger.signup();
    const theirs = await newApp(stranger);
    const refused = await stranger.post(`/api/apps/${theirs}/domains`, { hostname: "claimed.example.com" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/already claimed/);
  });

  it("lets a claim never verified within a week give way to another app's", async () => {
    const slug = await newApp();
    expect((await owner.post(`/api/apps/${slug}/domains`, { hostname: "squatted.example.com" })).status).toBe(201);
    const stranger = new Client(server.url);
    await stranger.signup();
    const theirs = await newApp(stranger);
    expect((await stranger.post(`/api/apps/${theirs}/domains`, { hostname: "squatted.example.com" })).status).toBe(409);
    const sixDays = new Date(Date.now() - 6 * 24 * 3600_000);
    const { db } = server.slipway.platform;
    await db.domain.update({ where: { hostname: "squatted.example.com" }, data: { createdAt: sixDays } });
    expect((await stranger.post(`/api/apps/${theirs}/domains`, { hostname: "squatted.example.com" })).status).toBe(409);
    await db.domain.update({ where: { hostname: "squatted.example.com" }, data: { createdAt: new Date(Date.now() - 8 * 24 * 3600_000) } });
    const taken = await stranger.post(`/api/apps/${theirs}/domains`, { hostname: "squatted.example.com" });
    expect(taken.status).toBe(201);
    expect((await owner.get(`/api/apps/${slug}/domains`)).body).toEqual([]);
    expect(server.slipway.platform.engine.routes.domain("squatted.example.com")).toMatchObject({ slug: theirs, verified: false });
    // A verified claim holds however old.
    await db.domain.update({ where: { hostname: "squatted.example.com" }, data: { verifiedAt: new Date(), createdAt: new Date(0) } });
    expect((await owner.post(`/api/apps/${slug}/domains`, { hostname: "squatted.example.com" })).status).toBe(409);
  });

  it("says why verification failed while the hostname does not reach Slipway", async () => {
    const slug = await newApp();
    expect((await owner.post(`/api/apps/${slug}/domains`, { hostname: "unresolvable.invalid" })).status).toBe(201);
    const res = await owner.post(`/api/apps/${slug}/domains/unresolvable.invalid/verify`);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/not verified yet: http:\/\/unresolvable\.invalid:\d+\/\.well-known\/slipway-challenge\/\S+ could not be fetched/);
    expect(res.body.error.message).toMatch(/TXT record _slipway-challenge\.unresolvable\.invalid/);
    expect((await owner.get(`/api/apps/${slug}/domains`)).body[0].verified).toBe(false);
  });
});

describe("domains: verification and routing", () => {
  it("answers the challenge only for a pending domain with that token, and the unknown-host page otherwise", async () => {
    const slug = await newApp();
    const added = await owner.post(`/api/apps/${slug}/domains`, { hostname: "pending.example.test" });
    const token = added.body.txtRecord.value as string;
    const challenge = await requestApp(server.url, "pending.example.test", `/.well-known/slipway-challenge/${token}`);
    expect(challenge).toMatchObject({ status: 200, body: token });
    expect(challenge.headers["content-type"]).toMatch(/^text\/plain/);
    // The platform's own host answers it too, and nothing for another token.
    expect((await owner.get(`/.well-known/slipway-challenge/${token}`)).body).toBe(token);
    expect((await owner.get(`/.well-known/slipway-challenge/${"x".repeat(32)}`)).status).toBe(404);
    const wrong = await requestApp(server.url, "pending.example.test", `/.well-known/slipway-challenge/${"x".repeat(32)}`);
    expect(wrong.status).toBe(404);
    expect(wrong.body).toMatch(/No app here/);
    // Unverified: the unknown-host page, never the app nor the platform's dashboard.
    await deploy(owner, slug, await zipFolder(path.join(FIXTURES, "static")));
    const home = await requestApp(server.url, "pending.example.test", "/");
    expect(home.status).toBe(404);
    expect(home.body).toMatch(/No app here/);
    expect(home.headers["set-cookie"]).toBeUndefined();
  });

  it("verifies through the HTTP challenge, then routes the custom Host to the app like its own host", async () => {
    const slug = await newApp();
    await deploy(owner, slug, await zipFolder(path.join(FIXTURES, "static")));
    expect((await owner.post(`/api/apps/${slug}/domains`, { hostname: "shop.example.test" })).status).toBe(201);
    expect((await requestApp(server.url, "shop.example.test", "/")).status).toBe(404);

    const verified = await owner.post(`/api/apps/${slug}/domains/shop.example.test/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ hostname: "shop.example.test", verified: true, txtRecord: null, challengeUrl: null, certificate: "none" });
    expect(Date.parse(verified.body.verifiedAt)).toBeGreaterThan(0);

    const own = await requestApp(server.url, `${slug}.localhost`, "/");
    const custom = await requestApp(server.url, "Shop.Example.Test.", "/");
    expect(custom.status).toBe(200);
    expect(custom.body).toBe(own.body);
    expect(custom.body).toMatch(/hello from static/);
    // A verified domain's challenge path is the app's own (its token is spent).
    expect((await requestApp(server.url, "shop.example.test", `/.well-known/slipway-challenge/${"y".repeat(32)}`)).body).not.toMatch(/^[A-Za-z0-9_-]{32}$/);
    // The app's routes are the app's: the platform's API is not served there.
    expect((await requestApp(server.url, "shop.example.test", "/api/me")).body).not.toMatch(/unauthenticated/);
    // Verifying again is harmless; the listing shows the state.
    expect((await owner.post(`/api/apps/${slug}/domains/shop.example.test/verify`)).status).toBe(200);
    expect((await owner.get(`/api/apps/${slug}/domains`)).body).toMatchObject([{ hostname: "shop.example.test", verified: true }]);
    // GraphQL: App.domains.
    const gql = await owner.graphql(`query ($slug: String!) { app(slug: $slug) { domains { hostname verified dnsRecord { type value } } } }`, { slug });
    expect(gql.body.data.app.domains).toEqual([{ hostname: "shop.example.test", verified: true, dnsRecord: { type: "CNAME", value: `${slug}.localhost` } }]);

    // A stopped app shows the same status page on both hosts.
    expect((await owner.post(`/api/apps/${slug}/stop`)).status).toBe(200);
    const stoppedOwn = await requestApp(server.url, `${slug}.localhost`, "/");
    const stoppedCustom = await requestApp(server.url, "shop.example.test", "/");
    expect(stoppedOwn.status).toBe(503);
    expect(stoppedCustom).toMatchObject({ status: 503, body: stoppedOwn.body });
  });

  it("a page on a custom domain is never the platform's own origin: a cookie POST from it is refused", async () => {
    const res = await owner.post("/api/apps", { slug: newSlug() }, { origin: "http://shop.example.test" });
    expect(res.status).toBe(403);
  });

  it("removing a domain stops routing and releases the hostname", async () => {
    const slug = await newApp();
    await deploy(owner, slug, await zipFolder(path.join(FIXTURES, "static")));
    await owner.post(`/api/apps/${slug}/domains`, { hostname: "gone.example.test" });
    expect((await owner.post(`/api/apps/${slug}/domains/gone.example.test/verify`)).body.verified).toBe(true);
    expect((await requestApp(server.url, "gone.example.test", "/")).body).toMatch(/hello from static/);

    expect((await owner.request("DELETE", `/api/apps/${slug}/domains/GONE.example.test`)).status).toBe(204);
    const after = await requestApp(server.url, "gone.example.test", "/");
    // No longer an app host, and no platform host: the "No app here" page, never the dashboard's sign-in.
    expect([after.status, after.body]).toEqual([404, (await requestApp(server.url, "ghost.localhost", "/")).body]);
    expect(server.slipway.platform.engine.routes.domain("gone.example.test")).toBeUndefined();
    expect((await owner.get(`/api/apps/${slug}/domains`)).body).toEqual([]);
    expect((await owner.request("DELETE", `/api/apps/${slug}/domains/gone.example.test`)).status).toBe(404);
    // Free again: another app may claim it.
    expect((await owner.post(`/api/apps/${await newApp()}/domains`, { hostname: "gone.example.test" })).status).toBe(201);
  });

  it("deleting the app stops routing its domains and frees the hostnames", async () => {
    const slug = await newApp();
    await deploy(owner, slug, await zipFolder(path.join(FIXTURES, "static")));
    await owner.post(`/api/apps/${slug}/domains`, { hostname: "freed.example.test" });
    expect((await owner.post(`/api/apps/${slug}/domains/freed.example.test/verify`)).body.verified).toBe(true);
    expect((await requestApp(server.url, "freed.example.test", "/")).status).toBe(200);

    expect((await owner.request("DELETE", `/api/apps/${slug}`)).status).toBe(204);
    expect((await requestApp(server.url, "freed.example.test", "/")).body).not.toMatch(/hello from static/);
    const stranger = new Client(server.url);
    await stranger.signup();
    expect((await stranger.post(`/api/apps/${await newApp(stranger)}/domains`, { hostname: "freed.example.test" })).status).toBe(201);
  });

  it("loads verified domains from the database when the server boots", async () => {
    const slug = await newApp();
    await deploy(owner, slug, await zipFolder(path.join(FIXTURES, "static")));
    await owner.post(`/api/apps/${slug}/domains`, { hostname: "www.example.test" });
    expect((await owner.post(`/api/apps/${slug}/domains/www.example.test/verify`)).body.verified).toBe(true);
    // As after a restart: an empty table, then the service's start (what listen() runs at boot).
    await server.slipway.platform.services.domains.stop();
    server.slipway.platform.engine.routes.setDomains([]);
    expect((await requestApp(server.url, "www.example.test", "/")).body).not.toMatch(/hello from static/);
    await server.slipway.platform.services.domains.start();
    expect((await requestApp(server.url, "www.example.test", "/")).body).toMatch(/hello from static/);
  });

  it("verifies through a TXT record when the hostname does not reach Slipway yet", async () => {
    const slug = await newApp();
    const added = await owner.post(`/api/apps/${slug}/domains`, { hostname: "txt.example.test" });
    const txt = added.body.txtRecord;
    expect(txt.name).toBe("_slipway-challenge.txt.example.test");
    dns.txt.set(txt.name, ["some-other-text"]);
    const wrong = await owner.post(`/api/apps/${slug}/domains/txt.example.test/verify`);
    expect(wrong.status).toBe(409);
    expect(wrong.body.error.message).toMatch(/TXT record _slipway-challenge\.txt\.example\.test does not hold the token/);
    dns.txt.set(txt.name, ["some-other-text", txt.value]);
    // Two checks at once (say, two clicks): both answer the verified domain.
    const both = await Promise.all([1, 2].map(() => owner.post(`/api/apps/${slug}/domains/TXT.example.test./verify`)));
    expect(both.map((r) => [r.status, r.body.verified])).toEqual([[200, true], [200, true]]);
    expect(server.slipway.platform.engine.routes.domain("txt.example.test")).toEqual({ slug, verified: true });
  });

  it("re-checks pending domains in the background", async () => {
    const slug = await newApp();
    await deploy(owner, slug, await zipFolder(path.join(FIXTURES, "static")));
    await owner.post(`/api/apps/${slug}/domains`, { hostname: "later.example.test" });
    expect((await requestApp(server.url, "later.example.test", "/")).status).toBe(404);
    await server.slipway.platform.services.domains.recheck();
    expect((await owner.get(`/api/apps/${slug}/domains`)).body[0].verified).toBe(true);
    expect((await requestApp(server.url, "later.example.test", "/")).body).toMatch(/hello from static/);
  });
});
