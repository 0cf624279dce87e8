// Requests/s through Slipway's app router against the app hit directly, nginx and @fastify/reply-from in
// the same run. The app is a tiny Node server in its own process; Slipway and reply-from run on this
// process's main thread (autocannon in a worker thread), nginx with one worker in its own process.
import { request } from "undici";
import type { RouteTable } from "../../server/hosting/router/types.ts";
import { hasCaddy, nginxBinary, startCaddy, startNginx, startOkApp, startReplyFrom, type Running } from "../lib/proxies.ts";
import { startSlipway } from "../lib/slipway.ts";
import type { PreparedSuite, Row, Scenario, Suite } from "../lib/types.ts";
import { COLUMNS_EXPLAINED } from "./me.ts";

const SLUG = "bench";
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
      if (nginx) running.push(nginx);
      const caddyHost = `${SLUG}.localhost`;
      const caddy = hasCaddy() ? await startCaddy(app.port, caddyHost) : null;
      if (caddy) running.push(caddy);

      await expectOk(app.url);
      await expectOk(`${slipway.url}/`, { host });
      await expectOk(`${slipway.url}/`, { host: scaledHost });
      await expectOk(replyFrom.url);
      if (nginx) await expectOk(nginx.url);
      if (caddy) await expectOk(caddy.url, { host: caddyHost });

      const scenarios: Scenario[] = [
        { name: "router", label: `Slipway's router (\`Host: ${SLUG}.localhost\`, undici keep-alive pool)`, target: { url: `${slipway.url}/`, headers: { host } } },
        {
          name: "router-3",
          label: `Slipway's router, the same app at 3 instances (\`Host: ${SCALED}.localhost\`, least in-flight, round-robin ties)`,
          target: { url: `${slipway.url}/`, headers: { host: scaledHost } },
        },
        { name: "reply-from", label: "@fastify/reply-from 12 standalone (bare Fastify, default undici agent)", target: { url: replyFrom.url } },
      ];
      if (nginx) scenarios.push({ name: "nginx", label: "nginx 1 worker, `proxy_pass` + upstream `keepalive 32`", target: { url: nginx.url } });
      if (caddy) scenarios.push({ name: "caddy", label: "Caddy (EDGE=caddy's app route, plain HTTP), GOMAXPROCS=1", target: { url: caddy.url, headers: { host: caddyHost } } });

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
            ? "Caddy (Debian's 2.6) runs as its own process with `GOMAXPROCS=1` (one core, like nginx's one worker) and the route EDGE=caddy loads for a running app (`appHandler` in `server/platform/edge/caddy.ts`: host matcher, `reverse_proxy` with its default keep-alive pool, the Set-Cookie rewrite), over plain HTTP like the nginx row."
            : "Caddy was **not found**, so its row is missing: install it (`apt-get install caddy`) and rerun.",
          "`router-3` is the same route with three upstreams: three processes of the same app (what `instances: 3` runs), the router picking the one with the fewest requests in flight. On two CPUs the app is never the bottleneck (the baseline is the app alone, one process), so the row shows what the balancing costs, not what scaling out gains: that needs more cores than the load generator and the proxy take.",
          "Only two CPUs: the load generator, the proxy under test and the app share them, so every proxy is measured at the same disadvantage against the direct baseline.",
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
    }
    return lines.join(" ");
  },
};
