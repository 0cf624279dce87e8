// Builds the HTTP server: one Fastify instance serving the API, GraphQL (HTTP + WebSocket), the
// dashboard and, later, OAuth and deployed apps.
import fastifyCookie from "@fastify/cookie";
import fastifyFormbody from "@fastify/formbody";
import fastifyMultipart from "@fastify/multipart";
import Fastify, { type FastifyInstance } from "fastify";
import { configWarnings, type Config } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { schema } from "./graphql/schema/index.ts";
import { RUN_ATTACH_PATH, runTerminalUpgrade } from "./http/run-terminal.ts";
import type { EdgeDriver } from "./platform/edge/types.ts";
import { registerGraphQL } from "./graphql/server.ts";
import { createRouter, type RouteTable } from "./hosting/router/index.ts";
import { cdnRoutes } from "./http/cdn.ts";
import { edgeLookups } from "./http/cdn-edge.ts";
import { registerCors } from "./http/cors.ts";
import { registerErrorHandler } from "./http/errors.ts";
import { backupDownloadRoutes } from "./http/backup-download.ts";
import { registerBatchedTurns } from "./http/batch-turns.ts";
import { githubWebhookRoutes } from "./http/github-webhook.ts";
import { graphiqlAssetRoutes } from "./http/graphiql.ts";
import { registerGuard } from "./http/guard.ts";
import { domainChallengeRoute } from "./http/domain-challenge.ts";
import { registerMetrics } from "./http/metrics.ts";
import { registerHostCheck } from "./http/host.ts";
import { registerSecurityHeaders } from "./http/security-headers.ts";
import { registerDashboard } from "./http/web.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { sharedKey } from "./services/sealed.ts";
import { createEdge } from "./platform/edge/index.ts";
import { createPlatform, type Platform } from "./platform/index.ts";
import { systemClock, type Clock } from "./hosting/clock.ts";
import { Activity } from "./hosting/sleep/activity.ts";
import { RequestCounts } from "./hosting/metrics/requests.ts";
import { LocalStorage } from "./platform/storage/index.ts";
import { compileRoutes, registerRestRoutes } from "./rest/adapter.ts";
import { buildOpenApi } from "./rest/openapi.ts";
import { EDGE_LINKS } from "./services/cdn-layout.ts";

export interface Slipway {
  app: FastifyInstance;
  /** /graphql's fast path (null with GRAPHQL_FAST_PATH=false): how many requests it answered. */
  graphqlFastPath: { readonly answered: number } | null;
  platform: Platform;
  /** Listens on config.port (0 = a free port) and returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export interface SlipwayOptions {
  /** Where app hosts (`<slug>.<APPS_DOMAIN>`) are routed instead of the hosting engine (router tests). */
  routeTable?: RouteTable;
  /** Where the server's log goes instead of stdout (tests that check what is logged). */
  logStream?: { write(line: string): void };
  /** The clock cron's minutes are read from (tests drive it instead of waiting for them). */
  clock?: Clock;
  /** This clustered instance lost the lead it had (server/main.ts exits; see PlatformHooks). */
  onLostLeadership?(): void;
}

/** How often the edge is checked for Slipway's configuration (a restarted Caddy converges within this). */
const EDGE_CHECK_MS = 5_000;
/** How long a stopping server waits for requests under way before it cuts their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Until the platform exists (nothing listens yet then). */
const NO_APPS: RouteTable = { lookup: () => ({ kind: "unknown" }) };

export async function buildSlipway(config: Config, options: SlipwayOptions = {}): Promise<Slipway> {
  await migrate(config.databaseUrl);
  // App hosts are answered by the router before Fastify sees the request, from the engine's route table
  // (known once the platform exists, after Fastify whose logger it uses).
  let routes: RouteTable = NO_APPS;
  let platformRef: { engine: { upstreamFailed(slug: string, instanceId: string, why: string): void }; wakeApp(slug: string): Promise<void> } | null = null;
  // What keeps apps with sleepAfterMinutes awake: the requests and WebSockets the router passes them.
  const activity = new Activity((options.clock ?? systemClock).now);
  // What the router answered each app (requests, 5xx, latency): the app's metrics.
  const counts = new RequestCounts();
  const router = createRouter({
    appsDomain: config.appsDomain,
    publicUrl: config.publicUrl,
    routes: { lookup: (slug) => routes.lookup(slug), domain: (hostname) => routes.domain?.(hostname) },
    onError: (slug, err) => app.log.warn({ slug, err }, "app request failed"),
    onUpstreamFailed: (slug, upstream, err) => {
      if (upstream.id) platformRef?.engine.upstreamFailed(slug, upstream.id, (err as { code?: string }).code ?? err.message);
    },
    sleep: { activity, wake: (slug) => platformRef?.wakeApp(slug) ?? Promise.reject(new Error("the platform is not ready")) },
    counts,
  });
  const app = Fastify({
    serverFactory: router.serverFactory,
    logger:
      config.logLevel === "silent"
        ? false
        : { level: config.logLevel, redact: ["req.headers.authorization", "req.headers.cookie"], ...(options.logStream ? { stream: options.logStream } : {}) },
    bodyLimit: 1024 * 1024,
    // Behind the edge every request comes from Caddy: its X-Forwarded-For (which Caddy sets, never passing a
    // client's on) names the client, for sign-in throttling and audit records. Without an edge nothing is trusted.
    trustProxy: config.edge ? [...new Set(["127.0.0.1", "::1", dialable(config.host)])] : false,
  });
  // A graceful stop lets requests under way finish, but not for ever: a client holding a request open (a
  // streamed download, a slow upload) would hold the stop for as long as it likes. Past the grace, it is cut.
  app.addHook("preClose", (done) => {
    const cut = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
    app.server.once("close", () => clearTimeout(cut));
    done();
  });
  const platform = await createPlatform(config, app.log, options.clock, { onLostLeadership: options.onLostLeadership }, activity, counts);
  platformRef = platform;
  await platform.services.oauthClients.ensureFirstParty();
  routes = options.routeTable ?? platform.engine.routes;
  for (const warning of configWarnings(config)) app.log.warn(warning);

  if (config.httpBatchTurns) registerBatchedTurns(app);
  await app.register(fastifyCookie);
  await app.register(fastifyFormbody);
  registerErrorHandler(app);
  registerSecurityHeaders(app);
  registerHostCheck(app);
  registerCors(app, config.corsOrigins);
  registerGuard(app, platform);
  // On the root instance, before the routes: its hook counts every route's requests.
  registerMetrics(app, platform);
  const graphql = await registerGraphQL(app, platform, schema);
  router.platformUpgrade("/graphql", graphql.handleUpgrade);
  router.platformUpgrade(RUN_ATTACH_PATH, runTerminalUpgrade(platform, (header) => app.parseCookie(header)));

  const compiled = compileRoutes(schema, { jit: config.graphqlJit });
  const openapi = buildOpenApi(schema, compiled, config.publicUrl);
  await app.register(async (rest) => {
    // Uploads are streamed by the route (rest/adapter.ts), never buffered; limits are the caller's quota.
    await rest.register(fastifyMultipart, { throwFileSizeLimit: true });
    registerRestRoutes(rest, platform, schema, compiled);
    rest.get("/api/openapi.json", async () => openapi);
  });
  await app.register(oauthRoutes, { platform });
  await app.register(githubWebhookRoutes, { platform });
  await app.register(backupDownloadRoutes, { platform });
  await app.register(domainChallengeRoute, { platform });
  // EDGE_CDN_FILES=caddy with local storage: Caddy sends CDN files (sendfile) once Slipway has looked them up.
  const local = platform.storage instanceof LocalStorage ? platform.storage : null;
  const edgeFiles = config.edge?.cdnFiles === "caddy" && local ? { root: local.pathOf("cdn"), links: local.pathOf(EDGE_LINKS), token: sharedKey(config.sharedDataDir, "edge-cdn").toString("base64url") } : undefined;
  await app.register(cdnRoutes, { platform });
  if (edgeFiles && local) router.platformFastPath(edgeLookups(platform, local, edgeFiles.token, app.log));
  await app.register(async (scope) => graphiqlAssetRoutes(scope));
  await registerDashboard(app);
  // Before the server waits for open connections: proxied streams and WebSockets would hold it open.
  app.addHook("preClose", () => router.close());
  let edgeTimer: NodeJS.Timeout | undefined;
  /** The edge in front (EDGE=caddy), once listening: closed after the platform. */
  let edgeDriver: EdgeDriver | null = null;
  app.addHook("onClose", async () => {
    clearInterval(edgeTimer);
    platform.engine.routes.detachEdge();
    try {
      await platform.close();
    } finally {
      // After the apps stopped: until then Caddy finds their instances here.
      await edgeDriver?.close();
    }
  });

  return {
    app,
    graphqlFastPath: graphql.fastPath,
    platform,
    async listen() {
      // Before any app starts: an instance that may not run beside the others on this database stops here.
      await platform.checkCluster();
      // The leader (the first instance, or the only one) adopts what runs and brings back the rest before the first
      // request, then starts cron and scheduled backups; a follower copies the leader's routing table.
      await platform.joinCluster(config.port);
      await platform.services.domains.start();
      // A lone instance has no upload in flight before it listens: CDN reservations a crash left behind are freed.
      if (!config.redisUrl) await platform.services.cdn.reconcileHolds();
      void platform.services.cdn.linkStoredFiles().catch((error: unknown) => app.log.error({ err: error }, "linking stored CDN files for the edge failed"));
      await app.listen({ port: config.port, host: config.host });
      const address = app.server.address();
      if (typeof address === "object" && address) platform.listensAt(address.port);
      // EDGE=caddy: the edge gets the whole table now (rebuilt from the database by boot and domains.start), then
      // every change; the server answers once it has it.
      const edge = createEdge(config, {
        appsDomain: config.appsDomain,
        platformHostname: new URL(config.publicUrl).hostname,
        slipway: { host: dialable(config.host), port: typeof address === "object" && address ? address.port : config.port },
        stateDir: config.dataDir,
        peers: () => platform.cluster?.edgePeers ?? [],
        cdnFiles: edgeFiles,
      });
      if (edge) {
        const routes = platform.engine.routes;
        edgeDriver = edge;
        platform.useEdge(edge);
        // Several instances behind one Caddy: each lists them all, and gives Caddy the new list when one comes or goes.
        platform.cluster?.servesEdge(await edge.start());
        platform.cluster?.onOthersChange(() => void routes.resync());
        await routes.attachEdge(
          (snapshot) => edge.apply(snapshot),
          (err) => app.log.error({ err }, `the ${edge.name} edge did not take the route table; retrying within ${EDGE_CHECK_MS / 1000} s`),
        );
        // A restarted (or replaced) edge gets everything again; a failed push is retried.
        edgeTimer = setInterval(() => {
          void edge.holdsConfig().then((holds) => (holds && routes.inSync ? undefined : routes.resync()));
        }, EDGE_CHECK_MS);
        edgeTimer.unref();
      }
      return typeof address === "object" && address ? `http://127.0.0.1:${address.port}` : config.publicUrl;
    },
    close: () => app.close(),
  };
}

/** Where the edge reaches Slipway's listening address (a wildcard address answers on loopback). */
function dialable(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "::1";
  return host.replace(/^\[|\]$/g, "");
}
