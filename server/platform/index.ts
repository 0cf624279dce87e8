// The process-wide dependencies, created once at boot and shared by every transport.
import { Deliveries } from "../notifications/deliveries.ts";
import { OutboundGuard } from "./outbound.ts";
import { DrainForwarder, readDrainCa } from "../drains/forwarder.ts";
import { createSealer } from "../services/sealed.ts";
import { randomUUID } from "node:crypto";
import { createAuthenticator, type Authenticate } from "../auth/viewer.ts";
import type { Config } from "../config.ts";
import { createDb, type Db } from "../db/client.ts";
import { createOAuthTokenStore } from "../db/oauth-token-store.ts";
import { createAppReads } from "../db/app-reads.ts";
import { createSql } from "../db/sql.ts";
import { HostingEngine } from "../hosting/engine.ts";
import type { RouteSnapshot } from "../hosting/routes.ts";
import type { EdgeDriver } from "./edge/types.ts";
import { OneOffRuns } from "../hosting/runs/runner.ts";
import { systemClock, type Clock } from "../hosting/clock.ts";
import { syncCronJobs } from "../hosting/cron/jobs.ts";
import { CronScheduler } from "../hosting/cron/scheduler.ts";
import { builders } from "../hosting/builders/index.ts";
import { describeBuilders, toolchainPackages } from "../hosting/builders/toolchains.ts";
import { createGitHubTokenStore } from "../services/github-tokens.ts";
import { createServices, type Services } from "../services/index.ts";
import { createRuntime } from "./runtime/index.ts";
import { createMailer, type MailLogger, type Mailer } from "./mail/index.ts";
import { createPubSub, type PubSub } from "./pubsub/index.ts";
import { createCounterStore, type CounterStore } from "./ratelimit/index.ts";
import { ReadCache } from "./read-cache.ts";
import { createStorage, type ObjectStorage } from "./storage/index.ts";
import { createProvisioners } from "./databases/index.ts";
import { clusterInstanceId, createClusterLease, instanceAddress, LeaderWork, refuseUnsupportedTopology, type ClusterLease } from "./cluster/index.ts";
import { CommandQueue } from "./cluster/commands.ts";
import { ClusterEngine } from "./cluster/engine.ts";
import { LeaderQuestions } from "./cluster/questions.ts";
import { RouteCopies } from "./cluster/route-copies.ts";
import { ActivityReports } from "./cluster/activity-reports.ts";
import { Activity } from "../hosting/sleep/activity.ts";
import { SleepScheduler } from "../hosting/sleep/scheduler.ts";
import { MetricsRecorder } from "../hosting/metrics/recorder.ts";
import { RequestCounts } from "../hosting/metrics/requests.ts";
import { METRICS_TOPIC } from "../services/metrics.ts";
import { createPlatformMetrics, type PlatformMetrics } from "./metrics.ts";
import { installationKey } from "./cluster/installation.ts";
import { platformId } from "./runtime/docker/client.ts";
import { syncAllCronJobs } from "../hosting/cron/jobs.ts";
import os from "node:os";

export interface Platform {
  config: Config;
  db: Db;
  counters: CounterStore;
  pubsub: PubSub;
  mailer: Mailer;
  services: Services;
  /** The engine as every entry point uses it: the leader's own, reached through the command queue on a follower. */
  engine: ClusterEngine;
  /** One-off runs (`slipway run`): beside the engine, through the same runtime driver. */
  runs: OneOffRuns;
  /** Starts the live releases' cron jobs at their minutes (on the leader: see cluster). */
  cron: CronScheduler;
  /** Throws ClusterTopologyError when this instance may not run beside the others on this database (before boot). */
  checkCluster(): Promise<void>;
  /** The server listens at `port` (PORT=0 picks it then): the cluster's list and the followers learn it. */
  listensAt(port: number): void;
  /**
   * Makes this instance the leader when no other is, before it listens at `port`: the leader adopts what runs and
   * brings back the rest (resolves once it did); a follower copies the leader's routing table.
   */
  joinCluster(port: number): Promise<void>;
  cluster: ClusterLease | null;
  storage: ObjectStorage;
  authenticate: Authenticate;
  /** The edge in front (EDGE=caddy), once the server listens: it serves the custom domains' certificates. */
  useEdge(edge: EdgeDriver): void;
  /** The requests and WebSockets the router passed to each app (here, and reported by the other instances). */
  activity: Activity;
  /** The platform's own metrics (GET /metrics). */
  metrics: PlatformMetrics;
  /** Puts idle apps to sleep (on the leader). */
  sleeps: SleepScheduler;
  /** Webhook deliveries: tests run the leader's retry round (retryDue) after moving the clock. */
  deliveries: Deliveries;
  /** Log drains: what this instance forwards each app's lines to. */
  drains: DrainForwarder;
  /** Writes the apps' per-minute metrics: the leader's samples of their instances, every instance's router counts. */
  appMetrics: MetricsRecorder;
  /** Starts a sleeping app (a request arrived for it); resolves once it serves, or shows why not. */
  wakeApp(slug: string): Promise<void>;
  close(): Promise<void>;
}

const CACHE_CLEARED = "read-cache:cleared";
/** After a failed start of the leader's work, how long before it is tried again. */
const RETRY_LEAD_MS = 5_000;

export interface PlatformHooks {
  /**
   * A clustered instance that led lost the lease (it could not renew it: the database was out of reach): another
   * leads now, so this one must stop acting on the apps. The server exits (a restart joins as a follower).
   */
  onLostLeadership?(): void;
}

/** `clock`: what cron's minutes are read from (tests drive it). */
/** `activity`: the requests the router passes to apps (what keeps apps with sleepAfterMinutes awake). */
/** `counts`: what the router answered each app (its metrics). */
export async function createPlatform(
  config: Config,
  logger: MailLogger,
  clock: Clock = systemClock,
  hooks: PlatformHooks = {},
  activity = new Activity(clock.now),
  counts = new RequestCounts(),
): Promise<Platform> {
  const instance = randomUUID();
  const counters = createCounterStore(config.redisUrl, config.redisKeyPrefix);
  const pubsub = createPubSub(config.redisUrl, config.redisKeyPrefix);
  const cache = new ReadCache({ maxEntries: 10_000, ttlMs: 30_000 });
  const db = createDb(config.databaseUrl, () => {
    cache.clear();
    pubsub.publish(CACHE_CLEARED, instance).catch(() => {}); // the TTL covers a lost message
  });
  const clearedElsewhere = await pubsub.subscribe(CACHE_CLEARED);
  void (async () => {
    for await (const from of clearedElsewhere) if (from !== instance) cache.clear();
  })();

  const sql = createSql(config.databaseUrl);
  const mailer = createMailer(config.mail, logger);
  const githubTokens = createGitHubTokenStore({ db, config });
  const runtimeLog = { info: (message: string) => logger.info({}, message), warn: (message: string) => logger.warn({}, message) };
  // Several instances share a PostgreSQL database (a SQLite file has one): followers reach the leader's engine, and
  // what the runtime creates is labelled with the installation's key, so whichever instance leads adopts it.
  const clustered = config.databaseProvider === "postgresql";
  const driver = await createRuntime(config, runtimeLog, toolchainPackages(builders), clustered ? await installationKey(db, platformId(config.dataDir)) : undefined);
  const onError = (err: unknown, message: string) => logger.error({ err }, message);
  const hosting = new HostingEngine({
    db,
    git: { baseUrl: config.githubUrl, tokenFor: (appId) => githubTokens.tokenFor(appId) },
    sql,
    pubsub,
    driver,
    onError,
    deploymentSettled: (status, steps, ids) => {
      metrics.deployment(status, steps.reduce((sum, step) => sum + step.ms, 0) / 1000);
      services.notifications.deploymentSettled(ids, status);
    },
    appCrashed: (appId) => services.notifications.crashed(appId),
    goingLive: (appId, cron) => {
      sleeps.awake(appId);
      return syncCronJobs(db, appId, cron);
    },
    maxInstancesOf: async (appId) => {
      const app = await db.app.findUniqueOrThrow({ where: { id: appId }, select: { ownerId: true } });
      return (await services.accounts.quotaOf(app.ownerId)).maxInstances;
    },
    options: {
      dataDir: config.dataDir,
      sharedDataDir: config.sharedDataDir,
      ...config.hosting,
      drainMs: 1000,
      stopGraceMs: 5000,
      backoff: { baseMs: 1000, maxMs: 60_000, healthyAfterMs: 30_000 },
    },
  });
  const metrics = createPlatformMetrics({ db, runningInstances: () => hosting.runningInstances(), logLinesDropped: () => hosting.logs.droppedTotal });
  let cluster: ClusterLease | null = null;
  let closing = false;
  let engineStarted = false;
  /** The leader answers followers' questions and takes their commands (set once both started). */
  let answeringFollowers = false;
  // Leading once its engine booted: until then, work goes through the queue its engine takes once booted.
  const leading = () => !clustered || (!!cluster?.leading && engineStarted);
  const commands = clustered
    ? new CommandQueue({ databaseUrl: config.databaseUrl, pubsub, onError, queueExists: async () => (await db.$queryRawUnsafe<unknown[]>("SELECT 1 FROM information_schema.schemata WHERE schema_name = 'pgboss'")).length > 0 })
    : null;
  const questions = clustered ? new LeaderQuestions({ pubsub, waitMs: 1000, onError }) : null;
  const engine = new ClusterEngine({ db, local: hosting, leading, cluster: commands && questions ? { commands, questions } : null, answerWithinMs: Math.max(30_000, 2 * config.clusterLeaseMs), onError });
  let listeningPort = config.port;
  const routeCopies = clustered
    ? new RouteCopies({ pubsub, routes: hosting.routes, leading, address: () => ({ host: reachableHost(config.host), port: listeningPort }), onError })
    : null;
  const runs = new OneOffRuns({ db, driver, logs: engine.logs, pubsub, limits: config.hosting.limits, dataDirOf: (appId) => engine.paths.data(appId), onError, instanceId: clusterInstanceId(config.dataDir), clock, runFailed: (appId, runId) => services.notifications.runFailed(appId, runId) });
  /** Runs no instance runs any more (this one's earlier boot's, a dead instance's) fail as interrupted. */
  const failInterruptedRuns = () => runs.failInterrupted(cluster?.otherInstances ?? []);
  logger.info({}, await describeBuilders(builders, config.runtime));
  const storage = await createStorage(config);
  const databases = await createProvisioners(config, {
    pathOf: (appId, file) => engine.appDataPath(appId, file),
    appEndpoint: (server) => engine.appEndpoint(server),
  });
  const outbound = new OutboundGuard(config.outboundAllowed);
  const deliveries = new Deliveries({ db, guard: outbound, sealer: createSealer(config.sharedDataDir, "webhooks"), clock, onError });
  // Real time, like the lease: a test's clock for cron must not hold the lines a drain sends.
  const drains = new DrainForwarder({ db, guard: outbound, pubsub, clock: systemClock, logs: hosting.logs, hostname: new URL(config.publicUrl).hostname, ca: readDrainCa(config.drainCaFile), onError });
  await drains.start();
  hosting.logs.tap((appId, lines) => drains.forward(appId, lines));
  let edge: EdgeDriver | null = null;
  const certificateOf = (hostname: string, verified: boolean) => edge?.certificate(hostname, verified) ?? "none";
  const services = createServices({ db, config, someoneLeads: () => !clustered || !!cluster?.someoneLeads, counters, pubsub, cache, mailer, logger, tokens: createOAuthTokenStore(sql), appReads: createAppReads(sql), engine, runs, githubTokens, storage, databases, certificateOf, deliveries, outbound, now: () => new Date(clock.now()) });
  const cron = new CronScheduler({
    db,
    clock,
    start: (job) => services.runs.startCron(job),
    log: (appId, line) => {
      void engine.logs.resume(appId).then(() => engine.logs.append(appId, { kind: "runtime", stream: "system", deploymentId: null, instance: null, runId: null, line }));
    },
    onError,
  });
  const engineWork = {
    async start() {
      // Once per process: a lone instance that missed a renewal (a slow disk) and leads again goes on as it was; a
      // start that failed part-way (tried again while this instance holds the lease) goes on from where it stopped.
      if (!engineStarted) {
        // Interrupted deployments are settled and stopped apps' pages set up before the first request; running apps
        // come back in the background (their page says deploying until they answer).
        await hosting.boot();
        await failInterruptedRuns();
        // After interrupted runs are settled: one left RUNNING would make its job skip the minute it is due.
        await syncAllCronJobs(db);
        engineStarted = true;
        await services.apps.enforceSleepRule();
      }
      if (!questions || !commands || !routeCopies || answeringFollowers) return;
      routeCopies.publish();
      await questions.answer((kind, about) => (kind === "runtime" ? hosting.runtime(about) : kind === "routes" ? routeCopies.forFollowers() : null));
      await commands.work((command) => engine.handle(command));
      answeringFollowers = true;
    },
    async stop() {
      // Alone (SQLite, or no other instance seen lately), no other instance takes over: nothing to give up.
      if (!clustered || !engineStarted || closing || !cluster?.hadCompanions) return;
      // Its supervisors would fight the new leader's over the same apps: the instance goes (and comes back following).
      logger.error({}, "This instance lost the cluster's lease (it could not renew it in time): another instance leads now.");
      hooks.onLostLeadership?.();
    },
  };
  const sleeps = new SleepScheduler({
    db,
    clock,
    activity,
    sleepsWhenIdle: (slug, on) => hosting.routes.sleepsWhenIdle(slug, on),
    sleep: (app, minutes) => hosting.sleep(app, minutes),
    onError,
  });
  const appMetrics = new MetricsRecorder({
    db,
    clock,
    counts,
    source: instance,
    instances: () => (leading() && engineStarted ? hosting.sampledInstances() : null),
    retentionDays: config.metrics.retentionDays,
    written: () => void pubsub.publish(METRICS_TOPIC, "").catch((error: unknown) => onError(error, "telling live metrics views failed")),
    onError,
  });
  const activityReports = clustered ? new ActivityReports({ instance: clusterInstanceId(config.dataDir), pubsub, activity, leading, onError }) : null;
  const leaderWork = new LeaderWork(
    [
      engineWork,
      { start: () => cron.start(), stop: () => cron.close() },
      { start: () => services.backups.start(), stop: () => services.backups.stop() },
      { start: () => sleeps.start(), stop: () => sleeps.close() },
      { start: async () => deliveries.start(), stop: async () => deliveries.stop() },
    ],
    onError,
    // A boot that threw at a failover (the database or the runtime out of reach a moment): this instance holds the
    // lease, so it tries again while it does, instead of leading with no engine.
    (again) => {
      const timer = setTimeout(() => !closing && cluster?.leading && again(), RETRY_LEAD_MS);
      timer.unref();
    },
  );
  return {
    config,
    db,
    counters,
    pubsub,
    mailer,
    services,
    engine,
    runs,
    cron,
    storage,
    authenticate: createAuthenticator({ db, cache, defaultRequestsPerMinute: config.defaultQuota.requestsPerMinute }),
    useEdge: (front) => void (edge = front),
    activity,
    sleeps,
    deliveries,
    drains,
    metrics,
    appMetrics,
    async wakeApp(slug) {
      const app = await db.app.findUnique({ where: { slug }, include: { liveDeployment: true } });
      if (!app) return;
      await engine.wake(app, app.liveDeployment);
      activity.touch(slug);
      sleeps.awake(app.id);
    },
    get cluster() {
      return cluster;
    },
    checkCluster: () => refuseUnsupportedTopology(db, { dataDir: config.dataDir, runtime: config.runtime, leaseMs: config.clusterLeaseMs, redis: !!config.redisUrl }),
    listensAt(port) {
      listeningPort = port;
      cluster?.listensAt(instanceAddress(port));
    },
    async joinCluster(port) {
      listeningPort = port;
      await commands?.start();
      await questions?.start();
      await routeCopies?.start();
      await activityReports?.start();
      cluster = createClusterLease({ db, dataDir: config.dataDir, runtime: config.runtime, leaseMs: config.clusterLeaseMs, leaderWork, onError }, port);
      await cluster.start();
      // The leader fails a dead instance's runs once it is gone; a follower its own earlier boot's.
      cluster.onOthersChange(() => void (leading() ? failInterruptedRuns() : null)?.catch((error: unknown) => onError(error, "failing the runs of a gone instance")));
      await leaderWork.settled();
      appMetrics.start();
      if (!leading()) await failInterruptedRuns();
      if (!leading() && questions && routeCopies) routeCopies.apply(((await questions.ask("routes", "")) as RouteSnapshot["apps"] | null) ?? []);
    },
    async close() {
      closing = true;
      // A boot under way finishes first (else cron or backups would start after this).
      await leaderWork.settled().catch(() => {});
      // No more work taken in, then the engine stops, and only then another instance may lead.
      await routeCopies?.close();
      await activityReports?.close();
      await questions?.close();
      await commands?.close();
      await services.backups.stop();
      await services.domains.stop();
      await cron.close();
      deliveries.stop();
      await appMetrics.close();
      await runs.close();
      // Drains first: the engine's last log lines are not sent anywhere once it stops.
      await drains.close();
      await hosting.close();
      // After the engine: runs it killed on the way out notify too.
      await services.notifications.settled();
      await cluster?.close();
      await databases.close();
      await clearedElsewhere.return?.();
      await Promise.all([counters.close(), pubsub.close(), mailer.close(), storage.close()]);
      await Promise.all([db.$disconnect(), sql.close()]);
    },
  };
}

/** Where the other instances reach this one: the address it listens on, or the machine's name for a wildcard. */
function reachableHost(host: string): string {
  return host === "0.0.0.0" || host === "::" ? os.hostname() : host;
}
