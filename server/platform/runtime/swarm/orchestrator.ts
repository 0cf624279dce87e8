// The apps' Swarm services: one per app, created on its first deploy and updated by every later one (a new
// image, new env vars), scaled to its instances (0 when stopped), force-updated to restart, removed with
// its network and images. Swarm performs the rollouts, restarts crashed tasks and places them on nodes;
// Slipway builds the image (pushing it to REGISTRY_URL for other nodes), watches the tasks for its route
// table and follows their logs.
import fs from "node:fs/promises";
import { prepareWorkDir } from "../local/workdir.ts";
import { APP_USER } from "../docker/base-image.ts";
import type { Docker } from "../docker/client.ts";
import { LABEL, isNotFound } from "../docker/client.ts";
import { isDockerfileImage } from "../docker/dockerfile-image.ts";
import { ensureReleaseImage, removeAppImages } from "../docker/release-image.ts";
import type { SandboxLimits } from "../types.ts";
import { followTaskLogs } from "./logs.ts";
import { pushImage } from "./registry.ts";
import { RolloutFailed, waitForRollout } from "./rollout.ts";
import { LABEL_APP, LABEL_DEPLOYMENT, LABEL_MANAGED, LABEL_PROCESS, serviceName, serviceSpec, type ServiceInput } from "./spec.ts";
import { TaskWatcher, type TasksListener } from "./tasks.ts";

export { RolloutFailed };
export type { ServiceTasks, TaskView, Upstream } from "./tasks.ts";

export interface OrchestratorOptions {
  platformId: string;
  /** DATA_DIR: the folders above an app's data folder get the search bit the app user needs. */
  dataDir: string;
  /** SHARED_DATA_DIR, where the apps' data folders are (DATA_DIR unless set). */
  sharedDataDir?: string;
  /** The base image the release images are built from (made at boot). */
  baseImage: () => Promise<string>;
  /** host[:port] of the registry every node pulls release images from; null: one node, local images. */
  registry: string | null;
  stopGraceMs: number;
  startTimeoutMs: number;
  restart: { delayMs: number; windowMs: number };
  pollMs: number;
  onError(error: unknown, message: string): void;
}

export interface ServiceRelease {
  appKey: string;
  slug: string;
  deploymentId: string;
  /** The deployment whose image runs (a rollback runs an older deployment's image). */
  imageOf: string;
  dir: string;
  argv: string[];
  /** The health check's path; null: a TCP connect. */
  healthPath: string | null;
  env: Record<string, string>;
  replicas: number;
  limits: SandboxLimits;
  dataDir?: { host: string; inApp: string };
  /** Replace the tasks even when nothing in the spec changed (a restart). */
  force?: boolean;
}

/** A rollout Swarm is performing (begin → finish). */
export interface Rollout {
  serviceId: string;
  slug: string;
  deploymentId: string;
  replicas: number;
  previousStart: string | null;
  deadline: number;
}

interface ServiceState {
  ID: string;
  Version: { Index: number };
  Spec: ReturnType<typeof serviceSpec>;
  UpdateStatus?: { StartedAt?: string };
}

export class SwarmOrchestrator {
  readonly watcher: TaskWatcher;
  private nodeId: Promise<string> | null = null;

  constructor(
    readonly docker: Docker,
    private readonly options: OrchestratorOptions,
  ) {
    this.watcher = new TaskWatcher(docker, { intervalMs: options.pollMs, onError: (error) => options.onError(error, "listing Swarm tasks failed") });
  }

  /**
   * The release's image: built on this node (or by the driver's buildImage from a Dockerfile), pushed to the registry
   * when there is one; the name services use.
   */
  async image(release: { appKey: string; slug: string; deploymentId: string; dir: string }, log: (line: string) => void): Promise<{ name: string; userImage: boolean }> {
    const tag = await ensureReleaseImage(this.docker, {
      base: await this.options.baseImage(),
      release,
      dir: release.dir,
      labels: { [LABEL.platform]: this.options.platformId, [LABEL.app]: release.appKey, [LABEL.kind]: "release" },
    });
    const userImage = await isDockerfileImage(this.docker, tag);
    return { name: this.options.registry ? await pushImage(this.docker, tag, this.options.registry, log) : tag, userImage };
  }

  /** Creates or updates the app's service to run the release; resolves once Swarm completed the rollout. */
  async deploy(release: ServiceRelease, log: (line: string) => void, signal?: AbortSignal): Promise<void> {
    await this.finish(await this.begin(release, log), log, signal);
  }

  /** Builds (and pushes) the image, then asks Swarm for the service or its update; the rollout starts. */
  async begin(release: ServiceRelease, log: (line: string) => void): Promise<Rollout> {
    const existing = await this.find(release.appKey);
    const spec = await this.specFor(release, existing, log);
    let serviceId: string;
    if (existing) {
      log(`Updating the Swarm service ${spec.Name}: ${release.replicas} task(s), start-first, one at a time.`);
      await this.update(existing, spec);
      serviceId = existing.ID;
    } else {
      log(`Creating the Swarm service ${spec.Name} with ${release.replicas} task(s).`);
      serviceId = ((await this.docker.createService(spec as never)) as { id: string }).id;
    }
    return {
      serviceId,
      slug: release.slug,
      deploymentId: release.deploymentId,
      replicas: release.replicas,
      previousStart: existing ? (existing.UpdateStatus?.StartedAt ?? "") : null,
      deadline: Date.now() + this.options.startTimeoutMs * Math.max(1, release.replicas) + 15_000,
    };
  }

  /** Waits for Swarm to complete the rollout; a failed or canceled one is rolled back (or the new service removed). */
  async finish(rollout: Rollout, log: (line: string) => void, signal?: AbortSignal): Promise<void> {
    try {
      await waitForRollout(this.docker, this.watcher, { ...rollout, log, signal });
    } catch (error) {
      await this.undo(rollout.serviceId, rollout.previousStart !== null).catch((e: unknown) => this.options.onError(e, `rolling back the service of ${rollout.slug}`));
      throw error;
    }
  }

  /**
   * Creates or updates the service of one process type beside web (`release.process`) to run the release; resolves
   * with its id once Swarm took the spec (it rolls the tasks out itself, start-first). An unchanged spec changes
   * nothing: what runs keeps running.
   */
  async deployProcess(release: ServiceRelease & { process: string }, log: (line: string) => void): Promise<string> {
    const existing = (await this.processServices(release.appKey)).find((s) => s.Spec.Labels[LABEL_PROCESS] === release.process);
    const spec = await this.specFor(release, existing, log);
    if (!existing) return ((await this.docker.createService(spec as never)) as { id: string }).id;
    await this.update(existing, spec);
    return existing.ID;
  }

  /** The app's services of process types beside web as they run: by type, the service, the deployment its tasks run and how many. */
  async processServicesOf(appKey: string): Promise<Map<string, { id: string; deploymentId: string | null; replicas: number }>> {
    const services = await this.processServices(appKey);
    return new Map(services.map((s) => [s.Spec.Labels[LABEL_PROCESS]!, { id: s.ID, deploymentId: s.Spec.TaskTemplate.ContainerSpec.Labels[LABEL_DEPLOYMENT] ?? null, replicas: s.Spec.Mode.Replicated.Replicas }]));
  }

  /** Sets the number of tasks of a service by id (0: stopped, the service is kept). */
  async scaleService(serviceId: string, replicas: number): Promise<void> {
    const service = (await this.docker.getService(serviceId).inspect().catch(ignoreNotFound)) as ServiceState | undefined;
    // Gone meanwhile (the app is being deleted): nothing to scale.
    if (service) await this.setReplicas(service, replicas).catch(ignoreNotFound);
  }

  /** How many of the service's tasks still run (those Swarm is stopping included). */
  async runningTasks(serviceId: string): Promise<number> {
    const tasks = (await this.docker.listTasks({ filters: JSON.stringify({ service: [serviceId] }) } as object)) as { Status?: { State?: string } }[];
    return tasks.filter((t) => t.Status?.State === "running").length;
  }

  async removeService(serviceId: string): Promise<void> {
    this.watcher.unwatch(serviceId);
    await this.docker.getService(serviceId).remove().catch(ignoreNotFound);
  }

  /** Sets the number of tasks (0: stopped, the service is kept). */
  async scale(appKey: string, replicas: number): Promise<void> {
    const service = await this.find(appKey);
    if (service) await this.setReplicas(service, replicas);
  }

  private setReplicas(service: ServiceState, replicas: number): Promise<void> {
    return this.update(service, { ...service.Spec, Mode: { Replicated: { Replicas: replicas } } });
  }

  /** The spec of the release's service (`release.process`: a type beside web): its image built (and pushed) first. */
  private async specFor(release: ServiceRelease & { process?: string }, existing: ServiceState | null | undefined, log: (line: string) => void) {
    const image = await this.image({ ...release, deploymentId: release.imageOf }, log);
    const forceUpdate = (existing?.Spec.TaskTemplate.ForceUpdate ?? 0) + (release.force ? 1 : 0);
    return serviceSpec({ ...(await this.input(release, image.name, forceUpdate, image.userImage)), process: release.process });
  }

  /** Replaces every task with a fresh one of the same spec (start-first, as a deploy). */
  async restart(appKey: string): Promise<void> {
    const service = await this.find(appKey);
    if (!service) return;
    const spec = service.Spec;
    await this.update(service, { ...spec, TaskTemplate: { ...spec.TaskTemplate, ForceUpdate: (spec.TaskTemplate.ForceUpdate ?? 0) + 1 } });
  }

  async serviceId(appKey: string): Promise<string | null> {
    return (await this.find(appKey))?.ID ?? null;
  }

  watch(serviceId: string, listener: TasksListener): void {
    this.watcher.watch(serviceId, listener);
  }

  unwatch(serviceId: string): void {
    this.watcher.unwatch(serviceId);
  }

  followLogs(taskId: string, sink: Parameters<typeof followTaskLogs>[2], options: { since?: number; signal: AbortSignal }): Promise<void> {
    return followTaskLogs(this.docker, taskId, sink, options);
  }

  /** The app's services (web's and its other process types'), its network and its images. */
  async remove(appKey: string): Promise<void> {
    for (const service of await this.servicesOf(appKey)) await this.removeService(service.ID);
    await this.removeNetwork(appKey);
    await removeAppImages(this.docker, { [LABEL.app]: appKey, [LABEL.platform]: this.options.platformId });
  }

  /** Our services: each one whose app is kept stays (adopted as it runs); the others are removed. */
  async reap(keep: (appKey: string) => boolean): Promise<void> {
    for (const service of await this.ours()) {
      const appKey = service.Spec.Labels[LABEL_APP];
      if (!keep(appKey)) await this.remove(appKey);
    }
  }

  close(): void {
    this.watcher.close();
  }

  private async ours(): Promise<ServiceState[]> {
    const filters = { label: [`${LABEL_MANAGED}=true`, `${LABEL.platform}=${this.options.platformId}`] };
    return (await this.docker.listServices({ filters } as object)) as unknown as ServiceState[];
  }

  /** The app's web service. */
  private async find(appKey: string): Promise<ServiceState | null> {
    return (await this.servicesOf(appKey)).find((s) => !s.Spec.Labels[LABEL_PROCESS]) ?? null;
  }

  private async processServices(appKey: string): Promise<ServiceState[]> {
    return (await this.servicesOf(appKey)).filter((s) => s.Spec.Labels[LABEL_PROCESS]);
  }

  private async servicesOf(appKey: string): Promise<ServiceState[]> {
    const filters = { label: [`${LABEL_APP}=${appKey}`, `${LABEL.platform}=${this.options.platformId}`] };
    return (await this.docker.listServices({ filters } as object)) as unknown as ServiceState[];
  }

  /**
   * Sets the service's spec. Swarm refuses an update made against an older version of the service ("update out of
   * sequence"), and its version also moves when a rollout under way settles: read it again and set the same spec.
   */
  private async update(service: ServiceState, spec: object): Promise<void> {
    let version = service.Version.Index;
    for (let attempt = 1; ; attempt++) {
      try {
        return void (await this.docker.getService(service.ID).update({ _query: { version }, _body: spec } as never));
      } catch (error) {
        if (attempt >= 5 || !/out of sequence/i.test(String((error as Error).message))) throw error;
        version = ((await this.docker.getService(service.ID).inspect()) as ServiceState).Version.Index;
      }
    }
  }

  /** A failed or canceled rollout: back to the previous spec (Swarm may have done it already), or no service at all. */
  private async undo(serviceId: string, hadPrevious: boolean): Promise<void> {
    if (!hadPrevious) return void (await this.docker.getService(serviceId).remove().catch(ignoreNotFound));
    const service = (await this.docker.getService(serviceId).inspect()) as ServiceState & { UpdateStatus?: { State?: string } };
    if (service.UpdateStatus?.State?.startsWith("rollback")) return;
    await this.docker.getService(serviceId).update({ _query: { version: service.Version.Index, rollback: "previous" }, _body: service.Spec } as never);
  }

  private async input(release: ServiceRelease, image: string, forceUpdate: number, userImage: boolean): Promise<ServiceInput> {
    const spec: ServiceInput = {
      platformId: this.options.platformId,
      appKey: release.appKey,
      slug: release.slug,
      deploymentId: release.deploymentId,
      image,
      userImage,
      argv: release.argv,
      healthPath: release.healthPath,
      env: release.env,
      replicas: release.replicas,
      limits: release.limits,
      networkId: await this.network(release.appKey),
      forceUpdate,
      stopGraceMs: this.options.stopGraceMs,
      startTimeoutMs: this.options.startTimeoutMs,
      restart: this.options.restart,
    };
    // A bind mount exists on this node only: with one node (no registry) every app has its data folder; on
    // several, an app whose data folder holds something (its SQLite databases) is pinned here, others run anywhere.
    const data = release.dataDir;
    if (data && (!this.options.registry || (await fs.readdir(data.host).catch(() => [])).length > 0)) {
      await fs.mkdir(data.host, { recursive: true, mode: 0o700 });
      await prepareWorkDir(data.host, { uid: APP_USER.uid, dataDir: this.options.sharedDataDir ?? this.options.dataDir, chown: "always" });
      spec.dataDir = data;
      spec.pinToNode = await (this.nodeId ??= this.docker.info().then((i: { Swarm: { NodeID: string } }) => i.Swarm.NodeID));
    }
    return spec;
  }

  private networkName(appKey: string): string {
    return `slipway-app-${appKey}`;
  }

  /** The app's own overlay network: its tasks share it with nothing else. */
  private async network(appKey: string): Promise<string> {
    const name = this.networkName(appKey);
    const existing = await this.docker.getNetwork(name).inspect().catch((error: unknown) => (isNotFound(error) ? null : Promise.reject(error)));
    if (existing) return (existing as { Id: string }).Id;
    const labels = { [LABEL_MANAGED]: "true", [LABEL_APP]: appKey, [LABEL.platform]: this.options.platformId };
    const created = await this.docker.createNetwork({ Name: name, Driver: "overlay", Attachable: false, Labels: labels, CheckDuplicate: true });
    return created.id;
  }

  private async removeNetwork(appKey: string): Promise<void> {
    // Swarm frees a network a short while after the last task on it is gone.
    for (let attempt = 0; attempt < 20; attempt += 1) {
      try {
        return await this.docker.getNetwork(this.networkName(appKey)).remove();
      } catch (error) {
        if (isNotFound(error)) return;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }
}

function ignoreNotFound(error: unknown): void {
  if (!isNotFound(error)) throw error;
}

export { serviceName };
