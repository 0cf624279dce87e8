// Requests/s through Slipway's app router against the app hit directly, nginx, Caddy and @fastify/reply-from in
// the same run. The app is a tiny Node server in its own process; Slipway and reply-from run on this
// process's main thread (autocannon in a worker thread), nginx and Caddy in processes of their own: one core each
// (worker_processes 1, GOMAXPROCS=1), and a pair with two. Caddy's floors (a bare reverse_proxy, a static_response
// without any proxying) bound what any Caddy configuration can reach here. The TLS handshake rate of Caddy
// (`tls internal`) and nginx serving the same certificate is measured once at setup.
import os from "node:os";
import { request } from "undici";
import type { RouteTable } from "../../server/hosting/router/types.ts";
import { hasCaddy, nginxBinary, startCaddy, startNginx, startOkApp, startReplyFrom, type Running } from "../lib/proxies.ts";
import { handshakeRate, type HandshakeRate } from "../lib/tls-rate.ts";
import { startSlipway } from "../lib/slipway.ts";
import type { PreparedSuite, Row, Scenario, Suite } from "../lib/types.ts";
import { COLUMNS_EXPLAINED } from "./me.ts";

const SLUG = "bench";
/** Seconds each server's TLS handshake rate is measured for, and the clients connecting at once. */
const TLS_SECONDS = 5;
const TLS_CLIENTS = 10;
let handshakes: { caddy: HandshakeRate; nginx: HandshakeRate } | null = null;

async function measureHandshakes(binary: string, appPort: number, host: string, running: Running[]): Promise<{ caddy: HandshakeRate; nginx: HandshakeRate }> {
  const caddy = await startCaddy(appPort, host, { route: "static", procs: 1, tls: true });
  running.push(caddy);
  const nginx = await startNginx(binary, appPort, { tls: caddy.certificates! });
  running.push(nginx);
  // Warm both (Caddy's certificate cache, nginx's workers), then measure one after the other.
  await handshakeRate(caddy.port, host, 1, TLS_CLIENTS);
  await handshakeRate(nginx.port, host, 1, TLS_CLIENTS);
  return { caddy: await handshakeRate(caddy.port, host, TLS_SECONDS, TLS_CLIENTS), nginx: await handshakeRate(nginx.port, host, TLS_SECONDS, TLS_CLIENTS) };
}
/** The same app scaled to three instances (three processes): the router balances across them. */
const SCALED = "bench3";

async function expectOk(url: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await request(url, { headers });
  const body = await res.body.text();
  if (res.statusCode !== 200 || body !== "ok") throw new Error(`${url} (${JSON.stringify(headers)}) answered ${res.statusCode} ${body.slice(0, 200)}`);
}

export const routerSuite: Suite = {
  name: "router",
  title: "App router: proxied GET through Slipway vs the app direct, nginx and @fastify/reply-from",
  targets: [],

  async setup(): Promise<PreparedSuite> {
    const running: Running[] = [];
    const close = async () => {
      for (const one of running.reverse()) await one.close();
    };
    try {
      const app = await startOkApp();
      running.push(app);
      const more = [await startOkApp(), await startOkApp()];
      running.push(...more);
      const three = [app, ...more].map((a) => ({ host: "127.0.0.1", port: a.port }));
      const routes: RouteTable = {
        lookup: (slug) =>
          slug === SLUG
            ? { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: app.port }] }
            : slug === SCALED
              ? { kind: "proxy", upstreams: three }
              : { kind: "unknown" },
      };
      const slipway = await startSlipway({}, undefined, { routeTable: routes });
      running.push(slipway);
      const host = `${SLUG}.localhost:${new URL(slipway.url).port}`;
      const scaledHost = `${SCALED}.localhost:${new URL(slipway.url).port}`;
      const replyFrom = await startReplyFrom(app.url);
      running.push(replyFrom);
      const binary = nginxBinary();
      const nginx = binary ? await startNginx(binary, app.port) : null;
      const nginx2 = binary ? await startNginx(binary, app.port, { workers: 2 }) : null;
      running.push(...[nginx, nginx2].filter((one) => one !== null));
      const caddyHost = `${SLUG}.localhost`;
      const withCaddy = hasCaddy();
      const caddy = withCaddy ? await startCaddy(app.port, caddyHost, { route: "edge", procs: 1 }) : null;
      const caddyBare = withCaddy ? await startCaddy(app.port, caddyHost, { route: "bare", procs: 1 }) : null;
      const caddyStatic = withCaddy ? await startCaddy(app.port, caddyHost, { route: "static", procs: 1 }) : null;
      const caddy2 = withCaddy ? await startCaddy(app.port, caddyHost, { route: "edge", procs: 2 }) : null;
      running.push(...[caddy, caddyBare, caddyStatic, caddy2].filter((one) => one !== null));

      await expectOk(app.url);
      await expectOk(`${slipway.url}/`, { host });
      await expectOk(`${slipway.url}/`, { host: scaledHost });
      await expectOk(replyFrom.url);
      for (const one of [nginx, nginx2]) if (one) await expectOk(one.url);
      for (const one of [caddy, caddyBare, caddyStatic, caddy2]) if (one) await expectOk(one.url, { host: caddyHost });
      handshakes = binary && withCaddy ? await measureHandshakes(binary, app.port, caddyHost, running) : null;

      const scenarios: Scenario[] = [
        { name: "router", label: `Slipway's router (\`Host: ${SLUG}.localhost\`, undici keep-alive pool)`, target: { url: `${slipway.url}/`, headers: { host } } },
        {
          name: "router-3",
          label: `Slipway's router, the same app at 3 instances (\`Host: ${SCALED}.localhost\`, least in-flight, round-robin ties)`,
          target: { url: `${slipway.url}/`, headers: { host: scaledHost } },
        },
        { name: "reply-from", label: "@fastify/reply-from 12 standalone (bare Fastify, default undici agent)", target: { url: replyFrom.url } },
      ];
      const viaCaddy = (url: string) => ({ url, headers: { host: caddyHost } });
      if (nginx) scenarios.push({ name: "nginx", label: "nginx 1 worker, `proxy_pass` + upstream `keepalive 32`", target: { url: nginx.url } });
      if (caddy) scenarios.push({ name: "caddy", label: "Caddy (EDGE=caddy's app route, plain HTTP), GOMAXPROCS=1", target: viaCaddy(caddy.url) });
      if (caddyBare) scenarios.push({ name: "caddy-bare", label: "floor: Caddy bare `reverse_proxy` (no header operations), GOMAXPROCS=1", target: viaCaddy(caddyBare.url) });
      if (caddyStatic) scenarios.push({ name: "caddy-static", label: "floor: Caddy `static_response` (no proxying), GOMAXPROCS=1", target: viaCaddy(caddyStatic.url) });
      if (nginx2) scenarios.push({ name: "nginx-2", label: "nginx 2 workers, same config", target: { url: nginx2.url } });
      if (caddy2) scenarios.push({ name: "caddy-2", label: "Caddy (EDGE=caddy's app route), GOMAXPROCS=2", target: viaCaddy(caddy2.url) });

      return {
        baseline: { name: "baseline", label: "the app directly (tiny Node server answering `ok`, own process)", target: { url: app.url } },
        scenarios,
        setupNotes: [
          "The app (`bench/lib/ok-app.mjs`) answers `ok` with Content-Length in its own Node process; every proxy forwards to it over keep-alive connections.",
          "Slipway is the real server (`buildSlipway`, fresh SQLite, `LOG_LEVEL=silent`) given a RouteTable that maps `bench` to the app; requests carry `Host: bench.localhost:<port>` and never reach Fastify.",
          "@fastify/reply-from runs beside it on the same thread, as the best Node proxy library measured on this machine (see the sandbox reference's proxy bench).",
          nginx
            ? `nginx (\`${binary} -v\`: Debian's) runs as its own process with \`worker_processes 1\`, a temp prefix folder and config written by \`bench/lib/proxies.ts\`; it sets Host and X-Forwarded-* like the router does.`
            : "nginx was **not found**, so its row is missing: install it (`apt-get install nginx-light`) and rerun for the comparison.",
          caddy
            ? "Caddy (Debian's 2.6) runs as its own process with `GOMAXPROCS=1` (one core, like nginx's one worker) and the route EDGE=caddy loads for a running app (`appHandler` in `server/platform/edge/caddy.ts`: host matcher, `reverse_proxy` with its default keep-alive pool, the Set-Cookie rewrite), over plain HTTP like the nginx row, access logs off (Caddy's default), admin endpoint off. Two floors in their own Caddy processes: the same host matcher with a bare `reverse_proxy` (no header operations), and with a `static_response` (no proxying at all: Caddy's HTTP server alone). The pair `nginx-2`/`caddy-2` gives each two cores (`worker_processes 2`, `GOMAXPROCS=2`). " +
              `TLS handshake rate: Caddy (\`tls internal\`, GOMAXPROCS=1, its local CA's ECDSA P-256 certificate for ${caddyHost}) and nginx (1 worker) serving the same certificate and key files, each driven for ${TLS_SECONDS} s by ${TLS_CLIENTS} Node clients on this thread that each open a new TLS connection as soon as the last one is established (no session resumption; \`bench/lib/tls-rate.ts\`), after a 1 s warm-up.`
            : "Caddy was **not found**, so its row is missing: install it (`apt-get install caddy`) and rerun.",
          "`router-3` is the same route with three upstreams: three processes of the same app (what `instances: 3` runs), the router picking the one with the fewest requests in flight. On two CPUs the app is never the bottleneck (the baseline is the app alone, one process), so the row shows what the balancing costs, not what scaling out gains: that needs more cores than the load generator and the proxy take.",
          "Only two CPUs: the load generator, the proxy under test and the app share them, so every proxy is measured at the same disadvantage against the direct baseline.",
          `Load average when the suite started: ${os.loadavg().map((n) => n.toFixed(1)).join(", ")} (1, 5, 15 min; other jobs on a shared machine make single rounds noisy: compare the medians).`,
        ],
        close,
      };
    } catch (error) {
      await close();
      throw error;
    }
  },

  explain(rows: Row[]) {
    const find = (name: string) => rows.find((r) => r.scenario.name === name);
    const router = find("router");
    const replyFrom = find("reply-from");
    const nginx = find("nginx");
    const caddy = find("caddy");
    const scaled = find("router-3");
    const lines = [
      COLUMNS_EXPLAINED.replace("the plain Fastify route", "the app hit directly"),
      "Here the app and nginx run in processes of their own, so their rows show almost no busy time on this thread; the Node proxies' rows show their whole cost.",
    ];
    if (router && replyFrom) {
      // Ratio of the per-round ratios' medians: each round's baseline absorbs that round's load on the shared machine.
      const vsLibrary = router.ratio / replyFrom.ratio;
      const cheaper = router.serverMicrosPerRequest <= replyFrom.serverMicrosPerRequest;
      lines.push(
        `The router reached **${router.ratio.toFixed(2)}×** the direct app against **${replyFrom.ratio.toFixed(2)}×** for @fastify/reply-from ` +
          `(**${vsLibrary.toFixed(2)}×** the library's throughput), and spent ${Math.round(router.serverMicrosPerRequest)} µs of this thread per request ` +
          `against the library's ${Math.round(replyFrom.serverMicrosPerRequest)} µs. The goal (at least the best Node proxy library) is ` +
          (vsLibrary >= 1 && cheaper
            ? "**met** on both counts."
            : cheaper || vsLibrary >= 1
              ? `**met** on ${cheaper ? "cost per request" : "throughput"} and **missed** on ${cheaper ? "throughput" : "cost per request"} in this run.`
              : "**missed**."),
      );
    }
    if (router && scaled) {
      lines.push(
        `With the app at 3 instances the router reached **${scaled.ratio.toFixed(2)}×** (**${(scaled.ratio / router.ratio).toFixed(2)}×** its 1-instance throughput) ` +
          `at ${Math.round(scaled.serverMicrosPerRequest)} µs per request against ${Math.round(router.serverMicrosPerRequest)} µs.`,
      );
    }
    if (router && nginx) {
      lines.push(
        `nginx reached **${nginx.ratio.toFixed(2)}×**: the router does **${(router.ratio / nginx.ratio).toFixed(2)}×** nginx's throughput. ` +
          "That gap is the cost of proxying in JavaScript on one event loop (HTTP parsing and header handling in Node, the same as every Node proxy here); " +
          "a deployment that needs more can put nginx or Caddy in front for app hosts.",
      );
    }
    if (caddy && nginx) {
      const vsNginx = caddy.ratio / nginx.ratio;
      lines.push(
        `Caddy (EDGE=caddy's data plane) reached **${caddy.ratio.toFixed(2)}×**, **${vsNginx.toFixed(2)}×** nginx's throughput: the goal (at least 0.9× nginx) is ` +
          (vsNginx >= 0.9 ? "**met** in this run." : "**missed** in this run."),
      );
      const bare = find("caddy-bare");
      const staticFloor = find("caddy-static");
      if (bare && staticFloor) {
        lines.push(
          `The floors, same run: a bare \`reverse_proxy\` reached **${(bare.ratio / nginx.ratio).toFixed(2)}×** nginx (EDGE's route is **${(caddy.ratio / bare.ratio).toFixed(2)}×** the bare one), ` +
            `and Caddy answering by itself without proxying (\`static_response\`) **${(staticFloor.ratio / nginx.ratio).toFixed(2)}×** nginx's *proxied* throughput. ` +
            (bare.ratio / nginx.ratio < 0.9
              ? "No configuration of the route can beat the bare proxy, so with one core 0.9× nginx is out of Caddy 2.6's reach here: the gap is Caddy's own proxy path (Go's net/http server and transport), not the route EDGE=caddy loads."
              : "The bare proxy reaches the goal: the gap is in the route's configuration."),
        );
      }
      const nginx2 = find("nginx-2");
      const caddy2 = find("caddy-2");
      if (nginx2 && caddy2) {
        lines.push(`With two cores each (\`worker_processes 2\`, \`GOMAXPROCS=2\`): nginx **${nginx2.ratio.toFixed(2)}×**, Caddy **${caddy2.ratio.toFixed(2)}×**, **${(caddy2.ratio / nginx2.ratio).toFixed(2)}×** nginx.`);
      }
    }
    if (handshakes) {
      const { caddy: c, nginx: n } = handshakes;
      lines.push(
        `TLS handshakes (new connections per second, ${c.protocol} ${c.cipher}): Caddy **${Math.round(c.perSecond).toLocaleString("en-US")}/s**, nginx **${Math.round(n.perSecond).toLocaleString("en-US")}/s** ` +
          `(${n.protocol} ${n.cipher}) with the same certificate: Caddy **${(c.perSecond / n.perSecond).toFixed(2)}×** nginx. The Node clients run on this process's thread and may be the limit for both: the ratio, not the absolute rate, is the result.`,
      );
    }
    return lines.join(" ");
  },
};
