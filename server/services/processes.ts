// An app's processes by type (web, then its Procfile's other types) and its formation: how many instances of
// each run. Every type an app runs counts against its owner's maxInstances; web's number is App.instances, the
// others' App.formation (a type it does not name runs 1).
import type { Db } from "../db/client.ts";
import { InvalidRequestError, QuotaExceededError } from "../errors.ts";
import { shownCommand } from "../hosting/deploy/shown-command.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import type { ProcessStatus } from "../hosting/processes/workers.ts";
import type { InstanceStatus } from "../hosting/processes/process-group.ts";
import type { ReplicaStatus } from "../hosting/replicas.ts";
import { instancesBesideWeb, type Formation } from "../hosting/processes/workers.ts";
import { releaseOf } from "../hosting/replicas.ts";
import type { AccountService } from "./accounts.ts";
import { appRules } from "./app-rules.ts";
import type { AppRow, AppService } from "./apps.ts";

/** Web's instances are in health states (starting, healthy, unhealthy, crashed); the other types' in instance-states.ts's. */
export type InstanceView = Omit<InstanceStatus, "state"> & { state: InstanceStatus["state"] | ReplicaStatus["state"] };

/** The live release's web command (null: none, a static site) and its other types' argv. */
interface LiveTypes {
  web: string | null;
  others: Record<string, string[]>;
}

export interface ProcessView extends Omit<ProcessStatus, "instances"> {
  instances: InstanceView[];
}

export function createProcessService(deps: { db: Db; apps: AppService; accounts: AccountService; engine: ClusterEngine }) {
  const { db, apps, accounts, engine } = deps;

  /** The live release's process types: web (unless a static site), then the Procfile's others. */
  async function typesOf(app: AppRow): Promise<LiveTypes> {
    const live = app.liveDeploymentId ? await db.deployment.findUnique({ where: { id: app.liveDeploymentId }, select: { id: true, releasePath: true, web: true, processes: true } }) : null;
    const release = releaseOf(live);
    const web = release?.web.kind === "process" ? (release.web.shown ?? shownCommand(release.web.argv)) : null;
    return { web, others: release?.processes ?? {} };
  }

  /** App.processes: what runs now, by type. */
  async function list(app: AppRow, web: string | null): Promise<ProcessView[]> {
    const runtime = await engine.runtime(app.id);
    const webProcess: ProcessView[] =
      web === null
        ? []
        : [
            {
              type: "web",
              command: web,
              quantity: app.instances,
              instances: runtime.processes.map((p) => ({ index: p.index, name: `web.${p.index}`, instanceId: p.instanceId || null, state: p.state, startedAt: p.startedAt, restarts: p.restarts })),
            },
          ];
    return [...webProcess, ...runtime.workers];
  }

  /** A formation checked against the live release's types (400 naming the type) and the owner's maxInstances (403). */
  async function checked(app: AppRow, input: unknown, { web, others }: LiveTypes): Promise<{ web?: number; others: Formation }> {
    if (!input || typeof input !== "object" || Array.isArray(input) || !Object.keys(input).length) {
      throw new InvalidRequestError('Give the quantity of each process type to change, e.g. {"web": 2, "worker": 1}.');
    }
    const known = [...(web !== null ? ["web"] : []), ...Object.keys(others)];
    const problems: Record<string, string> = {};
    for (const [type, quantity] of Object.entries(input)) {
      if (!known.includes(type)) problems[type] = known.length ? `The live release has no process type "${type}": it runs ${known.join(", ")}.` : "This app has no live release with processes to scale: deploy it first.";
      else if (type === "web") {
        const problem = appRules.instances(quantity);
        if (problem) problems[type] = problem;
      } else if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity < 0 || quantity > MAX_PER_TYPE) {
        problems[type] = `Use a whole number from 0 (stops ${type}) to ${MAX_PER_TYPE}.`;
      }
    }
    const first = Object.entries(problems)[0];
    if (first) throw new InvalidRequestError(`${first[0]}: ${first[1]}`, problems);
    const { web: webQuantity, ...rest } = input as Record<string, number>;
    const formation: Formation = { ...((app.formation as Formation | null) ?? {}), ...rest };
    const total = (webQuantity ?? app.instances) + instancesBesideWeb(Object.keys(others), formation);
    const { maxInstances } = await accounts.quotaOf(app.ownerId);
    if (total > maxInstances) {
      throw new QuotaExceededError(`That formation runs ${total} instances of ${app.slug}: past your maxInstances of ${maxInstances} (counted over every process type). Scale a type down, or ask for a higher maxInstances limit.`);
    }
    return { web: webQuantity, others: formation };
  }

  return {
    async list(ownerId: string, slug: string): Promise<ProcessView[]> {
      const app = await apps.mine(ownerId, slug);
      return list(app, (await typesOf(app)).web);
    },

    /** For App.processes, given the app's row. */
    async ofApp(app: AppRow): Promise<ProcessView[]> {
      return list(app, (await typesOf(app)).web);
    },

    /** Sets how many instances of each named type run; they start and stop in the background. */
    async scale(ownerId: string, slug: string, input: unknown): Promise<ProcessView[]> {
      const app = await apps.mine(ownerId, slug);
      const types = await typesOf(app);
      const { web, others } = await checked(app, input, types);
      const updated = await db.app.update({ where: { id: app.id }, data: { formation: others, ...(web !== undefined ? { instances: web } : {}) } });
      if (web !== undefined && web !== app.instances) void engine.scale(updated, web);
      for (const [type, quantity] of Object.entries(input as Record<string, number>)) if (type !== "web") void engine.scaleWorkers(app, type, quantity);
      return list(updated, types.web);
    },
  };
}

/** The most instances of one type beside web (maxInstances bounds the sum anyway). */
const MAX_PER_TYPE = 100;

export type ProcessService = ReturnType<typeof createProcessService>;
