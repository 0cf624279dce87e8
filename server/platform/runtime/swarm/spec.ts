// The Swarm service of one app, as the Engine API (1.41, Docker 20.10) takes it: replicas of the release
// image, hardened like the docker driver's containers, a health check that gates every rollout, a
// start-first update that rolls back on failure, and the app's port published in host mode on a port
// Swarm picks per task (the ingress routing mesh needs IPVS, which these kernels lack).
import { LABEL } from "../docker/client.ts";
import type { SandboxLimits } from "../types.ts";

/** The port apps listen on inside their containers (each task has its own network namespace). */
export const APP_PORT = 8080;

export const LABEL_APP = LABEL.app;
export const LABEL_SLUG = "slipway.slug";
export const LABEL_DEPLOYMENT = "slipway.deployment";
export const LABEL_MANAGED = "slipway.managed";
/** On the service of a process type beside web (worker, clock, …): its type. Web's service has none. */
export const LABEL_PROCESS = "slipway.process";

const SECOND = 1_000_000_000;

export interface ServiceInput {
  /** Which platform owns the service (LABEL.platform): reap() touches only its own. */
  platformId: string;
  appKey: string;
  slug: string;
  deploymentId: string;
  image: string;
  /** Built from the user's Dockerfile: its own WORKDIR, and no health check of ours (the probe needs node in the image). */
  userImage?: boolean;
  /** Empty: the image's own ENTRYPOINT/CMD. */
  argv: string[];
  /** The app's health-check path; null: a TCP connect to its PORT. */
  healthPath: string | null;
  env: Record<string, string>;
  replicas: number;
  limits: SandboxLimits;
  /** The app's own overlay network. */
  networkId: string;
  /** Bound at /data; the service is then pinned to `pinToNode` (a bind mount exists on one node only). */
  dataDir?: { host: string; inApp: string };
  pinToNode?: string;
  /** Bumped to restart every task with the same spec. */
  forceUpdate: number;
  stopGraceMs: number;
  /** How long a new task may take to answer before its failed health checks count. */
  startTimeoutMs: number;
  restart: { delayMs: number; windowMs: number };
  /**
   * A process type beside web: its own service (`slipway-<slug>_<type>`), no port, no traffic, no health check (a
   * task that runs for the update monitor's 3 s counts), DYNO=<type>.<slot>.
   */
  process?: string;
}

/**
 * The task's health check: with a path, exits 0 once GET <path> on its PORT answers 2xx or 3xx; without, once a TCP
 * connect to it succeeds; 1 otherwise. An argv, no shell in the image; the path was validated (printable ASCII).
 */
export function healthProbe(path: string | null): string {
  const fail = ".on('error',()=>process.exit(1)).on('timeout',()=>process.exit(1))";
  if (path === null) return `require('net').connect({host:'127.0.0.1',port:process.env.PORT,timeout:8000},()=>process.exit(0))${fail}`;
  return [
    `require('http').get({host:'127.0.0.1',port:process.env.PORT,path:${JSON.stringify(path)},timeout:8000,headers:{'user-agent':'slipway-health-check'}},`,
    `r=>{r.resume();process.exit(r.statusCode>=200&&r.statusCode<400?0:1)})${fail}`,
  ].join("");
}

export function serviceName(slug: string, process?: string): string {
  // "_" is in no slug: an app named shop-worker never takes the name of shop's worker service.
  return process ? `slipway-${slug}_${process}` : `slipway-${slug}`;
}

export function serviceSpec(input: ServiceInput) {
  const worker = input.process !== undefined;
  const labels = { [LABEL_MANAGED]: "true", [LABEL.platform]: input.platformId, [LABEL_APP]: input.appKey, [LABEL_SLUG]: input.slug, ...(worker ? { [LABEL_PROCESS]: input.process! } : {}) };
  // Swarm fills {{.Task.Slot}} in for each task.
  const env = { ...input.env, ...(worker ? {} : { PORT: String(APP_PORT) }), HOME: "/tmp", DYNO: `${input.process ?? "web"}.{{.Task.Slot}}` };
  const mounts: object[] = [{ Type: "tmpfs", Target: "/tmp", TmpfsOptions: { SizeBytes: 64 * 1024 * 1024 } }];
  if (input.dataDir) mounts.push({ Type: "bind", Source: input.dataDir.host, Target: input.dataDir.inApp });
  const monitor = 3 * SECOND;
  return {
    Name: serviceName(input.slug, input.process),
    Labels: labels,
    TaskTemplate: {
      ContainerSpec: {
        Image: input.image,
        ...(input.argv.length ? { Command: input.argv } : {}),
        Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
        ...(input.userImage ? {} : { Dir: "/app" }),
        User: "10001:10001",
        ReadOnly: true,
        Mounts: mounts,
        CapabilityDrop: ["ALL"],
        Init: true,
        Labels: { ...labels, [LABEL_DEPLOYMENT]: input.deploymentId },
        StopGracePeriod: input.stopGraceMs * 1_000_000,
        Healthcheck: {
          // A user's image may have no node: its tasks serve once they run (Swarm's monitor period still applies).
          Test: input.userImage || worker ? ["NONE"] : ["CMD", "/usr/bin/node", "-e", healthProbe(input.healthPath)],
          Interval: SECOND / 2,
          // Generous: on a loaded node the probe's own `node` start can take seconds, and three false
          // timeouts in a row would roll a healthy release back. A refused connection still fails at once.
          Timeout: 10 * SECOND,
          Retries: 3,
          StartPeriod: input.startTimeoutMs * 1_000_000,
        },
      },
      Resources: {
        Limits: {
          MemoryBytes: input.limits.memoryBytes,
          NanoCPUs: Math.round((input.limits.cpuPercent / 100) * 1e9),
          Pids: input.limits.pids,
        },
      },
      RestartPolicy: { Condition: "any", Delay: input.restart.delayMs * 1_000_000, MaxAttempts: 0, Window: input.restart.windowMs * 1_000_000 },
      Placement: input.pinToNode ? { Constraints: [`node.id==${input.pinToNode}`] } : {},
      Networks: [{ Target: input.networkId }],
      ForceUpdate: input.forceUpdate,
    },
    Mode: { Replicated: { Replicas: input.replicas } },
    UpdateConfig: { Parallelism: 1, Delay: 0, FailureAction: "rollback", Monitor: monitor, MaxFailureRatio: 0, Order: "start-first" },
    RollbackConfig: { Parallelism: 1, Delay: 0, FailureAction: "pause", Monitor: monitor, MaxFailureRatio: 0, Order: "start-first" },
    EndpointSpec: { Mode: "vip", Ports: worker ? [] : [{ Protocol: "tcp", TargetPort: APP_PORT, PublishMode: "host" }] },
  };
}

export type ServiceSpec = ReturnType<typeof serviceSpec>;
