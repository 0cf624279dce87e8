// Custom domains: an app's owner claims a hostname (one app on the whole platform may hold it), proves control
// of it (services/domain-checks.ts), and from then on the router sends that Host to the app. This service is the
// one writer of the routing table's custom domains (engine.routes), loaded from the database at boot, kept in
// step across instances through pub/sub (and reloaded every minute), and re-checked while pending (every minute
// for the first hour).
import type { Notifier } from "../notifications/notifier.ts";
import { randomBytes } from "node:crypto";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { ConflictError, InvalidRequestError, NotFoundError } from "../errors.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import { CHALLENGE_PREFIX } from "../hosting/router/challenge.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { AppService } from "./apps.ts";
import type { Acting, AuditService } from "./audit.ts";
import { checkHostname, dnsChallenge, httpChallenge, type ChallengeOptions } from "./domain-checks.ts";
import { uniqueViolation } from "./validation.ts";

export const MAX_DOMAINS_PER_APP = 20;
const CHANGED = "domains:changed";
const RECHECK_MS = 60_000;
const RECHECK_FOR_MS = 60 * 60_000;
/** A claim still unverified after this long no longer holds the hostname: another app may claim it. */
export const PENDING_CLAIM_MS = 7 * 24 * 60 * 60_000;

type DomainRow = Awaited<ReturnType<Db["domain"]["findUniqueOrThrow"]>>;

export interface DnsRecord {
  type: string;
  name: string;
  value: string;
}

/** A domain as the API shows it. */
export interface DomainView {
  hostname: string;
  verified: boolean;
  verifiedAt: Date | null;
  /** "none": the in-process router serves HTTP only; with EDGE=caddy, who manages the certificate once routed. */
  certificate: string;
  /** What to create at the DNS provider so the hostname reaches the app. */
  dnsRecord: DnsRecord;
  /** While pending: the TXT record that proves control without serving HTTP (alternative to challengeUrl). */
  txtRecord: DnsRecord | null;
  /** While pending: the address Slipway fetches through the hostname, which must answer the token. */
  challengeUrl: string | null;
  createdAt: Date;
}

export function createDomainService(deps: {
  db: Db;
  config: Config;
  engine: ClusterEngine;
  apps: AppService;
  pubsub: PubSub;
  audit: AuditService;
  notifications: Pick<Notifier, "domainVerified">;
  /** The edge's certificate for a hostname (EDGE=caddy); "none" without an edge. */
  certificateOf(hostname: string, verified: boolean): string;
}) {
  const { db, config, engine, apps, audit } = deps;
  const publicUrl = new URL(config.publicUrl);
  const rules = { platformHostname: publicUrl.hostname, appsDomain: config.appsDomain };
  const challenge: ChallengeOptions = {
    // The domain's HTTP traffic reaches the edge's HTTP port (EDGE=caddy), else the platform's own.
    port: config.edge ? config.edge.httpPort : publicUrl.protocol === "http:" && publicUrl.port ? Number(publicUrl.port) : 80,
    resolve: config.domains.resolve,
    dnsServers: config.domains.dnsServers,
  };
  let timer: NodeJS.Timeout | undefined;
  let changes: AsyncIterableIterator<unknown> | undefined;
  let following: Promise<void> | undefined;

  const view = (row: DomainRow, slug: string): DomainView => ({
    hostname: row.hostname,
    verified: row.verifiedAt !== null,
    verifiedAt: row.verifiedAt,
    certificate: deps.certificateOf(row.hostname, row.verifiedAt !== null),
    dnsRecord: { type: "CNAME", name: row.hostname, value: `${slug}.${config.appsDomain}` },
    txtRecord: row.verifiedAt ? null : { type: "TXT", name: `_slipway-challenge.${row.hostname}`, value: row.token },
    challengeUrl: row.verifiedAt ? null : `http://${row.hostname}${challenge.port === 80 ? "" : `:${challenge.port}`}${CHALLENGE_PREFIX}${row.token}`,
    createdAt: row.createdAt,
  });

  /** Bumped by every write to the table here: a reload that read the database before it is stale. */
  let writes = 0;

  function route(row: DomainRow, slug: string): void {
    writes += 1;
    engine.routes.setDomain(row.hostname, row.verifiedAt ? { slug, verified: true } : { slug, verified: false, token: row.token });
  }

  /** Every instance reloads its table (this one included: the database is the truth). */
  const announce = () => deps.pubsub.publish(CHANGED, null).catch(() => {});

  async function reload(): Promise<void> {
    const before = writes;
    const rows = await db.domain.findMany({ include: { app: { select: { slug: true } } } });
    // A local change meanwhile: its own announcement brings another reload, which reads it.
    if (writes !== before) return;
    engine.routes.setDomains(rows.map((row) => [row.hostname, row.verifiedAt ? { slug: row.app.slug, verified: true } : { slug: row.app.slug, verified: false, token: row.token }]));
  }

  async function domainOf(by: Acting, slug: string, hostname: string): Promise<{ row: DomainRow; slug: string }> {
    const app = await apps.mine(by.id, slug);
    const checked = checkHostname(hostname, rules);
    const row = "hostname" in checked ? await db.domain.findUnique({ where: { hostname: checked.hostname } }) : null;
    if (!row || row.appId !== app.id) throw new NotFoundError(`The app "${slug}" has no domain "${hostname}".`);
    return { row, slug: app.slug };
  }

  /** Runs both challenges; the verified row, or null with the reasons they failed. */
  async function check(row: DomainRow): Promise<{ row: DomainRow | null; reasons: string[] }> {
    const viaHttp = await httpChallenge(row.hostname, row.token, challenge);
    const viaDns = viaHttp === null ? null : await dnsChallenge(row.hostname, row.token, challenge);
    const now = new Date();
    if (viaHttp !== null && viaDns !== null) {
      await db.domain.updateMany({ where: { id: row.id }, data: { checkedAt: now } });
      return { row: null, reasons: [viaHttp, viaDns] };
    }
    // updateMany: the domain may have been verified (a check at the same time) or removed meanwhile.
    const { count } = await db.domain.updateMany({ where: { id: row.id, verifiedAt: null }, data: { verifiedAt: now, checkedAt: now } });
    if (count) {
      deps.notifications.domainVerified(row.appId, row.hostname);
      return { row: { ...row, verifiedAt: now, checkedAt: now }, reasons: [] };
    }
    const current = await db.domain.findUnique({ where: { id: row.id } });
    return current?.verifiedAt ? { row: current, reasons: [] } : { row: null, reasons: ["the domain was removed meanwhile"] };
  }

  async function recheckPending(): Promise<void> {
    const pending = await db.domain.findMany({
      where: { verifiedAt: null, createdAt: { gt: new Date(Date.now() - RECHECK_FOR_MS) } },
      include: { app: { select: { slug: true } } },
      take: 50,
    });
    let verified = 0;
    for (const row of pending) {
      const result = await check(row);
      if (result.row) {
        route(result.row, row.app.slug);
        verified += 1;
      }
    }
    if (verified) await Promise.all([engine.routes.flush(), announce()]);
  }

  return {
    /** Loads the routing table and starts following changes and re-checking pending domains. */
    async start(): Promise<void> {
      await reload();
      const subscription = (changes = await deps.pubsub.subscribe(CHANGED));
      following = (async () => {
        for await (const _ of subscription) await reload().catch(() => {});
      })();
      // The reload also catches what no announcement carried (an app deleted on another instance).
      timer = setInterval(() => void reload().then(recheckPending).catch(() => {}), RECHECK_MS);
      timer.unref();
    },

    /** Stops following changes; resolves once no reload is under way. */
    async stop(): Promise<void> {
      clearInterval(timer);
      await changes?.return?.();
      await following;
    },

    /** Checks the pending domains of the last hour (what the timer runs every minute). */
    recheck: recheckPending,

    /** The platform's own hosts answer pending challenges too (a proxy in front may rewrite Host). */
    isPendingToken: (token: string) => engine.routes.challenge(token),

    async list(ownerId: string, slug: string): Promise<DomainView[]> {
      const app = await apps.mine(ownerId, slug);
      return this.ofApp(app);
    },

    async ofApp(app: { id: string; slug: string }): Promise<DomainView[]> {
      const rows = await db.domain.findMany({ where: { appId: app.id }, orderBy: [{ createdAt: "asc" }, { hostname: "asc" }] });
      return rows.map((row) => view(row, app.slug));
    },

    async add(by: Acting, slug: string, hostname: unknown): Promise<DomainView> {
      const app = await apps.mine(by.id, slug);
      const checked = checkHostname(hostname, rules);
      if ("problem" in checked) throw new InvalidRequestError(`Check hostname: ${checked.problem}`, { hostname: checked.problem });
      if ((await db.domain.count({ where: { appId: app.id } })) >= MAX_DOMAINS_PER_APP) {
        throw new InvalidRequestError(`An app can have at most ${MAX_DOMAINS_PER_APP} domains. Remove one first.`);
      }
      const create = () => db.domain.create({ data: { appId: app.id, hostname: checked.hostname, token: randomBytes(24).toString("base64url") } });
      let row: DomainRow;
      try {
        row = await create();
      } catch (error) {
        if (!uniqueViolation(error)) throw error;
        // An old claim never verified (squatting, or abandoned) gives way; a verified or recent one holds.
        const stale = await db.domain.deleteMany({ where: { hostname: checked.hostname, verifiedAt: null, createdAt: { lt: new Date(Date.now() - PENDING_CLAIM_MS) } } });
        if (!stale.count) {
          const message = `${checked.hostname} is already claimed on Slipway. Remove it from the app that holds it first.`;
          throw new ConflictError(message, { hostname: message });
        }
        writes += 1;
        engine.routes.removeDomain(checked.hostname);
        row = await create();
      }
      route(row, app.slug);
      await engine.routes.flush();
      await announce();
      await audit.by(by, "domain.add", { type: "app", id: app.id }, { slug: app.slug, hostname: row.hostname });
      return view(row, app.slug);
    },

    /** Checks the challenges now: the verified domain, or a conflict naming why neither passed. */
    async verify(by: Acting, slug: string, hostname: string): Promise<DomainView> {
      const found = await domainOf(by, slug, hostname);
      if (found.row.verifiedAt) return view(found.row, found.slug);
      const result = await check(found.row);
      if (!result.row) {
        throw new ConflictError(
          `${found.row.hostname} is not verified yet: ${result.reasons.join("; ")}. Point the hostname at ${found.slug}.${config.appsDomain} (CNAME), or create the TXT record, then try again.`,
        );
      }
      route(result.row, found.slug);
      await engine.routes.flush();
      await announce();
      await audit.by(by, "domain.verify", { type: "app", id: found.row.appId }, { slug: found.slug, hostname: found.row.hostname });
      return view(result.row, found.slug);
    },

    async remove(by: Acting, slug: string, hostname: string): Promise<boolean> {
      const { row, slug: appSlug } = await domainOf(by, slug, hostname);
      await db.domain.deleteMany({ where: { id: row.id } });
      writes += 1;
      engine.routes.removeDomain(row.hostname);
      await engine.routes.flush();
      await announce();
      await audit.by(by, "domain.remove", { type: "app", id: row.appId }, { slug: appSlug, hostname: row.hostname });
      return true;
    },
  };
}

export type DomainService = ReturnType<typeof createDomainService>;
