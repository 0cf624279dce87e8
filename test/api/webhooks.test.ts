// Webhooks on the real server, delivered to a real local receiver (OUTBOUND_ALLOWED_HOSTS lists 127.0.0.1): the
// signature checked with the documented algorithm (HMAC-SHA256 of the raw body, computed here), deploy.succeeded
// and deploy.failed from real deploys, a crash loop of a real sandboxed worker as one app.crashed, retries after a
// 500 on the injected clock (same X-Slipway-Delivery), the delivery log, the mails through a real SMTP server and
// their opt-out, and the 400s for URLs the outbound guard refuses.
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, waitFor, zipFolder } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { startMailbox, type Mailbox } from "../helpers/mailbox.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: { id: string; event: string; createdAt: string; data: Record<string, any> };
}

/** A webhook receiver: keeps every POST, answers the next status of `answers` (200 once they run out). */
async function startReceiver() {
  const received: Received[] = [];
  const answers: number[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk)).on("end", () => {
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.statusCode = answers.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, answers, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let server: TestServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let mailbox: Mailbox;
let owner: Client;
let email: string;
const clock = new FakeClock(Date.parse("2031-03-01T00:00:00Z"));
const slug = `hooked-${process.pid}`;

const APP = {
  "package.json": JSON.stringify({ name: "hooked", version: "1.0.0" }),
  "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`,
};

beforeAll(async () => {
  [receiver, mailbox] = await Promise.all([startReceiver(), startMailbox()]);
  server = await startServer({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", SMTP_URL: mailbox.url, DEFAULT_REQUESTS_PER_MINUTE: "100000", DEFAULT_MAX_INSTANCES: "8" }, { clock });
  owner = new Client(server.url);
  ({ email } = await owner.signup());
  await mailbox.next(email); // the address's verification link
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await Promise.all([receiver?.close(), mailbox?.close()]);
});

const notifications = () => server.slipway.platform.services.notifications;
const eventsOf = (name: string) => receiver.received.filter((r) => r.body.event === name);
const signature = (secret: string, raw: string) => `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;

describe("creating webhooks", () => {
  it("answers 201 with the secret once; the list never shows it", async () => {
    const res = await owner.post("/api/webhooks", { url: receiver.url, events: ["deploy.succeeded", "deploy.failed"], description: "CI" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^wh_/), url: receiver.url, events: ["deploy.succeeded", "deploy.failed"], description: "CI", secret: expect.stringMatching(/^whsec_/) });
    const list = await owner.get("/api/webhooks");
    expect(list.body).toEqual([expect.objectContaining({ id: res.body.id, url: receiver.url })]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
    expect((await owner.request("DELETE", `/api/webhooks/${res.body.id}`)).status).toBe(204);
    expect((await owner.get("/api/webhooks")).body).toEqual([]);
    expect((await owner.request("DELETE", `/api/webhooks/${res.body.id}`)).status).toBe(404);
  });

  it.each([
    [{ url: "ftp://127.0.0.1/hook", events: ["deploy.failed"] }, "url", /ftp:\/\/ is not supported/],
    [{ url: "http://user:pw@127.0.0.1/hook", events: ["deploy.failed"] }, "url", /credentials/],
    [{ url: "http://127.0.0.2:9/hook", events: ["deploy.failed"] }, "url", /127\.0\.0\.2, a loopback address.*OUTBOUND_ALLOWED_HOSTS/],
    [{ url: "http://169.254.169.254/latest", events: ["deploy.failed"] }, "url", /link-local/],
    [{ url: "http://[::1]/hook", events: ["deploy.failed"] }, "url", /loopback/],
    [{ url: "http://10.0.0.1/hook", events: ["deploy.failed"] }, "url", /private/],
    [{ url: "https://localhost./hook", events: ["deploy.failed"] }, "url", /loopback|does not resolve/],
    [{ url: receiver?.url ?? "http://127.0.0.1/", events: ["deploy.exploded"] }, "events", /unknown event "deploy.exploded"/],
    [{ url: receiver?.url ?? "http://127.0.0.1/", events: [] }, "events", /at least one/],
  ])("refuses %j: 400 naming %s", async (input, field, message) => {
    const res = await owner.post("/api/webhooks", { ...input, url: input.url === "http://127.0.0.1/" ? receiver.url : input.url });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.message).toMatch(message);
    expect(res.body.error.details.fields).toHaveProperty(field);
  });
});

describe("deliveries", () => {
  let secret: string;
  let hookId: string;

  beforeAll(async () => {
    const res = await owner.post("/api/webhooks", { url: receiver.url, events: ["deploy.succeeded", "deploy.failed", "app.crashed", "run.failed"] });
    ({ id: hookId, secret } = res.body);
  });

  it("sends deploy.succeeded signed with the documented algorithm, its id in X-Slipway-Delivery", async () => {
    expect((await deploy(owner, slug, await zipFolder(null, APP))).status).toBe("LIVE");
    const [delivery] = await waitFor(async () => eventsOf("deploy.succeeded").length > 0 && eventsOf("deploy.succeeded"), 10_000, "deploy.succeeded");
    expect(delivery.headers["x-slipway-signature-256"]).toBe(signature(secret, delivery.raw));
    expect(delivery.headers["x-slipway-event"]).toBe("deploy.succeeded");
    expect(delivery.headers["x-slipway-delivery"]).toBe(delivery.body.id);
    expect(delivery.body.data).toMatchObject({ app: { slug, url: expect.stringContaining(slug) }, deployment: { status: "LIVE" } });
    const log = await owner.get(`/api/webhooks/${hookId}/deliveries`);
    expect(log.body[0]).toMatchObject({ id: delivery.body.id, event: "deploy.succeeded", status: "SUCCEEDED", attempts: 1, responseStatus: 200 });
  }, 60_000);

  it("sends deploy.failed and mails the owner, unless the owner turned mails off", async () => {
    const broken = { ...APP, "package.json": "{ not json" };
    expect((await deploy(owner, slug, await zipFolder(null, broken))).status).toBe("FAILED");
    const [failed] = await waitFor(async () => eventsOf("deploy.failed").length > 0 && eventsOf("deploy.failed"), 10_000, "deploy.failed");
    expect(failed.body.data.deployment).toMatchObject({ status: "FAILED", error: expect.any(String) });
    const mail = await mailbox.next(email);
    expect(mail.subject).toBe(`Deploy of ${slug} failed`);
    expect(mail.text).toContain("Notifications → Mail");

    const off = await owner.request("PUT", "/api/account/notifications", { json: { emailNotifications: false } });
    expect([off.status, off.body]).toEqual([200, { emailNotifications: false }]);
    expect((await deploy(owner, slug, await zipFolder(null, broken))).status).toBe("FAILED");
    await waitFor(async () => eventsOf("deploy.failed").length === 2, 10_000, "the second deploy.failed");
    await notifications().settled();
    expect(mailbox.messages.filter((m) => m.to === email && m.subject.startsWith("Deploy of"))).toHaveLength(1);
    await owner.request("PUT", "/api/account/notifications", { json: { emailNotifications: true } });
  }, 60_000);

  it("retries after a 500 with the same delivery id, then records success in the log", async () => {
    receiver.answers.push(500);
    const test = await owner.post(`/api/webhooks/${hookId}/test`);
    expect(test.status).toBe(200);
    await notifications().settled();
    const first = (await owner.get(`/api/webhooks/${hookId}/deliveries`)).body.find((d: { id: string }) => d.id === test.body.id);
    expect(first).toMatchObject({ event: "ping", status: "PENDING", attempts: 1, responseStatus: 500, error: "answered 500" });
    expect(Date.parse(first.nextAttemptAt) - clock.now()).toBe(30_000);

    await clock.advanceTo(clock.now() + 30_000);
    await server.slipway.platform.deliveries.retryDue();
    const pings = eventsOf("ping");
    expect(pings.map((p) => p.headers["x-slipway-delivery"])).toEqual([test.body.id, test.body.id]);
    expect(pings[1].raw).toBe(pings[0].raw);
    const second = (await owner.get(`/api/webhooks/${hookId}/deliveries`)).body.find((d: { id: string }) => d.id === test.body.id);
    expect(second).toMatchObject({ status: "SUCCEEDED", attempts: 2, responseStatus: 200, nextAttemptAt: null });
  });

  it("gives up after six tries over more than an hour", async () => {
    receiver.answers.push(503, 503, 503, 503, 503, 503);
    const test = await owner.post(`/api/webhooks/${hookId}/test`);
    await notifications().settled();
    for (const delay of [30_000, 120_000, 600_000, 1_800_000, 3_600_000]) {
      await clock.advanceTo(clock.now() + delay);
      await server.slipway.platform.deliveries.retryDue();
    }
    const tries = eventsOf("ping").filter((p) => p.body.id === test.body.id);
    expect(tries).toHaveLength(6);
    const logged = (await owner.get(`/api/webhooks/${hookId}/deliveries`)).body.find((d: { id: string }) => d.id === test.body.id);
    expect(logged).toMatchObject({ status: "FAILED", attempts: 6, responseStatus: 503, nextAttemptAt: null });
  });

  it("raises one app.crashed for a crash loop of sandboxed workers (5 crashes within 10 minutes), not one per crash, mailed", async () => {
    const crashing = { ...APP, Procfile: "web: node server.js\nworker: node -e 'process.exit(3)'\n" };
    expect((await deploy(owner, slug, await zipFolder(null, crashing))).status).toBe("LIVE");
    expect((await owner.request("PATCH", `/api/apps/${slug}/formation`, { json: { worker: 5 } })).status).toBe(200);
    const crashes = async () => {
      const lines = (await owner.get(`/api/apps/${slug}/logs?kind=runtime&limit=500`)).body as { line: string }[];
      return lines.filter((l) => /^Crashed: worker\.\d/.test(l.line)).length;
    };
    // Five instances crash at once, then again after their back-off: ten crashes, one loop.
    await waitFor(async () => (await crashes()) >= 10, 30_000, "ten crashes");
    await notifications().settled();
    const crashed = eventsOf("app.crashed");
    expect(crashed).toHaveLength(1);
    expect(crashed[0].body.data).toMatchObject({ app: { slug }, crashes: 5, withinMinutes: 10 });
    expect((await mailbox.next(email)).subject).toBe(`${slug} keeps crashing`);
    expect((await owner.request("PATCH", `/api/apps/${slug}/formation`, { json: { worker: 0 } })).status).toBe(200);
  }, 60_000);
});
