// An app's log drains: a URL the outbound guard lets through (syslog://, syslog+tls:// or https://), at most
// MAX_DRAINS_PER_APP of them. Every instance's forwarder learns of a change through pub/sub (drains/forwarder.ts).
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client.ts";
import { InvalidRequestError, NotFoundError, QuotaExceededError } from "../errors.ts";
import { DRAINS_CHANGED } from "../drains/forwarder.ts";
import type { OutboundGuard } from "../platform/outbound.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { AppService } from "./apps.ts";
import type { Acting, AuditService } from "./audit.ts";

export const MAX_DRAINS_PER_APP = 5;
export const DRAIN_SCHEMES = ["syslog:", "syslog+tls:", "https:"];
const MAX_URL = 2000;

type DrainRow = Awaited<ReturnType<Db["logDrain"]["findUniqueOrThrow"]>>;

/** A drain as the API shows it: its counts summed over the instances that forward the app's lines. */
export interface DrainView {
  id: string;
  url: string;
  sent: number;
  dropped: number;
  lastError: string | null;
  lastErrorAt: Date | null;
  createdAt: Date;
}

const view = (row: DrainRow): DrainView => ({ ...row, sent: Number(row.sent), dropped: Number(row.dropped) });

export function createDrainService(deps: { db: Db; apps: Pick<AppService, "mine">; guard: OutboundGuard; pubsub: PubSub; audit: AuditService }) {
  const { db, apps, guard, audit } = deps;
  const changed = (appId: string) => deps.pubsub.publish(DRAINS_CHANGED, appId);

  async function checkUrl(value: string): Promise<URL> {
    const trimmed = value.trim();
    if (trimmed.length > MAX_URL) throw new InvalidRequestError(`url: at most ${MAX_URL} characters.`, { url: `At most ${MAX_URL} characters.` });
    const url = await guard.checkUrl(trimmed, "url", DRAIN_SCHEMES);
    if (url.protocol !== "https:" && (!url.port || url.pathname || url.search || url.hash)) {
      const message = `a syslog drain is ${url.protocol}//host:port, with its port and nothing after it.`;
      throw new InvalidRequestError(`url: ${message}`, { url: message });
    }
    return url;
  }

  const ofApp = async (appId: string) => (await db.logDrain.findMany({ where: { appId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map(view);

  return {
    ofApp,

    async list(ownerId: string, slug: string): Promise<DrainView[]> {
      const app = await apps.mine(ownerId, slug);
      return ofApp(app.id);
    },

    async add(by: Acting, slug: string, input: { url: string }): Promise<DrainView> {
      const app = await apps.mine(by.id, slug);
      const url = await checkUrl(input.url);
      if ((await db.logDrain.count({ where: { appId: app.id } })) >= MAX_DRAINS_PER_APP) {
        throw new QuotaExceededError(`${app.slug} has ${MAX_DRAINS_PER_APP} log drains, the most an app may have: remove one first.`);
      }
      const id = `drn_${randomBytes(10).toString("hex")}`;
      // Syslog URLs keep their exact form (the URL class would not normalise an unknown scheme anyway).
      const row = await db.logDrain.create({ data: { id, appId: app.id, url: url.protocol === "https:" ? url.href : `${url.protocol}//${url.host}` } });
      await changed(app.id);
      await audit.by(by, "drain.add", { type: "app", id: app.id }, { slug: app.slug, drain: id, url: `${url.protocol}//${url.host}` });
      return view(row);
    },

    async remove(by: Acting, slug: string, id: string): Promise<boolean> {
      const app = await apps.mine(by.id, slug);
      const removed = await db.logDrain.deleteMany({ where: { id, appId: app.id } });
      if (!removed.count) throw new NotFoundError(`${app.slug} has no log drain "${id}".`);
      await changed(app.id);
      await audit.by(by, "drain.remove", { type: "app", id: app.id }, { slug: app.slug, drain: id });
      return true;
    },
  };
}

export type DrainService = ReturnType<typeof createDrainService>;
