// The docker runtime driver: builds run in a container from the base image with the release folder bind-mounted
// at /app (so the platform must run on the Docker host); each instance is a container of the release's own image
// on the app's network, reached by the router at its address there. Containers carry labels (platform, app,
// instance, and for app instances what adopt() matches): a restarted platform with the same DATA_DIR adopts the
// containers of every process type that run what it would start, and reap() removes the rest. close() leaves app
// instances running.
import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { SandboxUnavailableError } from "../errors.ts";
import type { ImageBuildResult, ImageBuildSpec, Instance, InstanceSpec, ProcessSpec, ReleaseRef, RunResult, RunSpec, RuntimeDriver, SandboxReport } from "../types.ts";
import { prepareWorkDir } from "../local/workdir.ts";
import { APP_USER, ensureBaseImage } from "./base-image.ts";
import { containerStats } from "./stats.ts";
import { type Docker, LABEL, createDockerClient, pingDocker, platformId } from "./client.ts";
import { type Bind, type RunningContainer, adoptContainer, runContainer } from "./container.ts";
import { BUILD_CACHE_PATH } from "../paths.ts";
import { adoptionLabels, releaseOf } from "./fingerprint.ts";
import { SERVICE_ADDRESS, type ForwardedService, ensureAppNetwork, networkName, removeNetwork, setupFirewall } from "./network.ts";
import { probeDocker, type DockerEnforcement } from "./probe.ts";
import { buildDockerfileImage, isDockerfileImage } from "./dockerfile-image.ts";
import { ensureReleaseImage, releaseTag, removeAppImages, removeReleaseImage } from "./release-image.ts";

export interface DockerDriverOptions {
  dataDir: string;
  /** SHARED_DATA_DIR, where the apps' data folders are (DATA_DIR unless set). */
  sharedDataDir?: string;
  /** Labels what this driver creates, and what it adopts: the installation's key when several instances share it. */
  platformKey?: string;
  allowPartial: boolean;
  dockerHost?: string;
  baseImage?: string;
  /** The Debian packages of the builders' toolchains, which the base image Slipway makes holds. */
  toolchains?: readonly (string | RegExp)[];
  /** REGISTRY_URL: where a Dockerfile's FROM images the engine lacks are pulled from. */
  registry?: string | null;
  forward?: ForwardedService;
  graceMs?: number;
  log?: (line: string) => void;
}

/** The port apps listen on inside their container (each has its own address). */
export const APP_PORT = 8080;
export const DATA_PATH = "/data";

export async function createDockerDriver(options: DockerDriverOptions): Promise<RuntimeDriver> {
  const docker = createDockerClient(options.dockerHost);
  await pingDocker(docker).catch((error: Error) => {
    throw new Error(`RUNTIME=docker: the Docker engine at ${options.dockerHost ?? "/var/run/docker.sock"} does not answer (${error.message})`);
  });
  const firewall = await setupFirewall(options.forward).then(
    () => true as const,
    (error: Error) => error.message,
  );
  const enforcement = await probeDocker(docker, firewall);
  if (options.forward && enforcement.firewall) {
    const network = enforcement.report.layers.find((l) => l.name === "network")!;
    network.detail += `; one exception: the PostgreSQL server of app databases (${options.forward.host}:${options.forward.port}), at ${SERVICE_ADDRESS}:${options.forward.port} only`;
  }
  const base = await ensureBaseImage(docker, { configured: options.baseImage, toolchains: options.toolchains, log: options.log });
  return new DockerDriver(docker, enforcement, base, options);
}

interface ReleaseImage {
  tag: string;
  /** Built from the user's Dockerfile (buildImage), not from the base image and the release folder. */
  userImage: boolean;
}

interface Running {
  appKey: string;
  kind: ContainerKind;
  container: RunningContainer;
}

/** A build step, a web instance, or an instance of another process type (worker, …: no PORT, never adopted). */
type ContainerKind = "build" | "web" | "process";

interface LaunchOptions {
  kind: ContainerKind;
  image: string;
  /** Built from the user's Dockerfile: its own WORKDIR and PATH. */
  userImage?: boolean;
  binds: Bind[];
  /** What the platform sets for every container of this kind (HOME, PORT). */
  runtimeEnv: Record<string, string>;
  instanceId?: string;
  labels?: Record<string, string>;
}

class DockerDriver implements RuntimeDriver {
  readonly name = "docker";
  readonly terminals = true;
  readonly sandbox: SandboxReport;
  readonly dataPath = DATA_PATH;
  private readonly platform: string;
  private readonly graceMs: number;
  private readonly instances = new Set<Instance>();
  private readonly running = new Set<Running>();
  private readonly images = new Map<string, Promise<ReleaseImage>>();
  private readonly networks = new Map<string, Promise<string>>();

  constructor(
    readonly docker: Docker,
    private readonly e: DockerEnforcement,
    readonly baseImage: string,
    private readonly options: DockerDriverOptions,
  ) {
    this.sandbox = e.report;
    this.platform = options.platformKey ?? platformId(options.dataDir);
    this.graceMs = options.graceMs ?? 5000;
  }

  appEndpoint(service: { host: string; port: number }): { host: string; port: number } {
    const forward = this.options.forward;
    const forwarded = this.e.firewall && forward && forward.host === service.host && forward.port === service.port;
    return forwarded ? { host: SERVICE_ADDRESS, port: service.port } : service;
  }

  async run(spec: RunSpec): Promise<RunResult> {
    this.refuseUnlessAllowed();
    if (spec.signal?.aborted) return { code: null, signal: null, timedOut: false, aborted: true };
    const own = spec.release && (await this.dockerfileImage(spec.release));
    const running = own
      ? // A release built from a Dockerfile (its release phase): in its image, which holds the app.
        await this.launch(spec, { kind: "build", image: own, userImage: true, binds: [], runtimeEnv: { HOME: "/tmp" } })
      : await this.launch(spec, { kind: "build", image: this.baseImage, binds: await this.buildBinds(spec), runtimeEnv: { HOME: "/app" } });
    let timedOut = false;
    let aborted = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void running.container.signal("SIGKILL");
    }, spec.timeoutMs);
    const onAbort = () => {
      aborted = true;
      void running.container.signal("SIGKILL");
    };
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    if (spec.signal?.aborted) onAbort();
    try {
      return { ...(await running.container.exited), timedOut, aborted };
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
    }
  }

  async buildImage(spec: ImageBuildSpec): Promise<ImageBuildResult> {
    this.refuseUnlessAllowed();
    if (spec.signal?.aborted) return { error: null, timedOut: false, aborted: true };
    const stop = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stop.abort();
    }, spec.timeoutMs);
    const onAbort = () => stop.abort();
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    this.images.delete(`${spec.appKey}/${spec.release.deploymentId}`);
    try {
      const error = await buildDockerfileImage(this.docker, {
        tag: releaseTag(spec.release),
        contextDir: spec.contextDir,
        dockerfile: spec.dockerfile,
        labels: { [LABEL.platform]: this.platform, [LABEL.app]: spec.appKey },
        network: await this.network(spec.appKey),
        registry: this.options.registry ?? null,
        limits: spec.limits,
        buildArgs: spec.buildArgs,
        onOutput: spec.onOutput,
        signal: stop.signal,
      });
      return { error, timedOut: false, aborted: false };
    } catch (error) {
      if (stop.signal.aborted) return { error: null, timedOut, aborted: !timedOut };
      throw error;
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
    }
  }

  async start(spec: InstanceSpec): Promise<Instance> {
    this.refuseUnlessAllowed();
    const image = await this.releaseImage(spec);
    const binds: Bind[] = [];
    if (spec.dataDir) {
      await mkdir(spec.dataDir, { recursive: true, mode: 0o700 });
      binds.push([await prepareWorkDir(spec.dataDir, { uid: APP_USER.uid, dataDir: this.options.sharedDataDir ?? this.options.dataDir, chown: "always" }), DATA_PATH]);
    }
    const { kind, labels } = adoptionLabels(spec, DATA_PATH);
    const runtimeEnv: Record<string, string> = kind === "web" ? { HOME: "/tmp", PORT: String(APP_PORT) } : { HOME: "/tmp" };
    const running = await this.launch(spec, { kind, image: image.tag, userImage: image.userImage, binds, runtimeEnv, instanceId: spec.instanceId, labels });
    return this.track(spec.appKey, spec.instanceId, running.container);
  }

  async adopt(spec: InstanceSpec & { index: number }): Promise<Instance | null> {
    const { kind, labels } = adoptionLabels(spec, DATA_PATH);
    const match = Object.entries({ [LABEL.platform]: this.platform, [LABEL.app]: spec.appKey, [LABEL.kind]: kind, ...labels }).map(([key, value]) => `${key}=${value}`);
    const taken = new Set([...this.running].map((r) => r.container.id));
    const found = await this.docker.listContainers({ filters: JSON.stringify({ label: match, status: ["running"] }) });
    for (const candidate of found.filter((c) => !taken.has(c.Id))) {
      const network = networkName(spec.appKey);
      const container = await adoptContainer(this.docker, candidate.Id, network, spec.onOutput);
      if (!container) continue;
      if (!this.networks.has(spec.appKey)) this.networks.set(spec.appKey, Promise.resolve(network));
      this.keep({ appKey: spec.appKey, kind, container });
      return this.track(spec.appKey, candidate.Labels[LABEL.instance] ?? spec.instanceId, container);
    }
    return null;
  }

  list(): Instance[] {
    return [...this.instances];
  }

  /**
   * Removes the containers (builds and web) and bridge networks of this DATA_DIR, except what adopt() took. Never a
   * Swarm task or overlay network (RUNTIME=swarm runs its builds through this driver): its orchestrator adopts those.
   */
  async reap(): Promise<void> {
    const ours = `${LABEL.platform}=${this.platform}`;
    const adopted = new Set([...this.running].map((r) => r.container.id));
    for (const c of await this.docker.listContainers({ all: true, filters: JSON.stringify({ label: [ours] }) })) {
      // A Swarm task has the labels of its image (kind "release") and of its service, not a kind of ours.
      const kind = c.Labels[LABEL.kind];
      if ((kind === "build" || kind === "web" || kind === "process") && !adopted.has(c.Id)) await this.docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
    }
    for (const n of await this.docker.listNetworks({ filters: JSON.stringify({ label: [ours], scope: ["local"] }) })) {
      if (!this.networks.has(n.Labels?.[LABEL.app] ?? "")) await removeNetwork(this.docker, n.Id).catch(() => {});
    }
  }

  async removeRelease(appKey: string, release: ReleaseRef): Promise<void> {
    this.images.delete(`${appKey}/${release.deploymentId}`);
    await removeReleaseImage(this.docker, release);
  }

  async removeApp(appKey: string): Promise<void> {
    await this.stopApp(appKey);
    for (const key of this.images.keys()) if (key.startsWith(`${appKey}/`)) this.images.delete(key);
    await removeAppImages(this.docker, { [LABEL.platform]: this.platform, [LABEL.app]: appKey });
  }

  /**
   * Stops the builds and runs; app instances (web and the other process types) keep running, and their networks (the
   * next boot adopts them). Images stay for the next start; the networks of apps with nothing running go (recreated
   * on demand).
   */
  async close(): Promise<void> {
    const instances = [...this.running].filter((r) => r.kind !== "build");
    for (const r of instances) r.container.detach();
    const builds = [...this.running].filter((r) => r.kind === "build");
    await Promise.all(builds.map((r) => r.container.signal("SIGKILL").then(() => r.container.exited)));
    this.instances.clear();
    this.running.clear();
    const kept = new Set(instances.map((r) => r.appKey));
    for (const [appKey, network] of this.networks) {
      if (kept.has(appKey)) continue;
      this.networks.delete(appKey);
      await removeNetwork(this.docker, await network.catch(() => "")).catch(() => {});
    }
  }

  private async stopApp(appKey: string): Promise<void> {
    await Promise.all([...this.instances].filter((i) => i.appKey === appKey).map((i) => i.stop()));
    await Promise.all([...this.running].filter((r) => r.appKey === appKey).map((r) => r.container.signal("SIGKILL").then(() => r.container.exited)));
    const network = this.networks.get(appKey);
    this.networks.delete(appKey);
    if (network) await removeNetwork(this.docker, await network.catch(() => "")).catch(() => {});
  }

  private refuseUnlessAllowed(): void {
    const missing = this.sandbox.layers.filter((l) => !l.enforced).map((l) => l.name);
    if (missing.length > 0 && !this.options.allowPartial) throw new SandboxUnavailableError(missing);
  }

  private network(appKey: string): Promise<string> {
    let pending = this.networks.get(appKey);
    if (!pending) {
      pending = (async () => {
        // Another platform on this host may have rewritten the host-wide tables since boot: set them again.
        if (this.e.firewall) await setupFirewall(this.options.forward);
        return (await ensureAppNetwork(this.docker, this.platform, appKey)).name;
      })();
      pending.catch(() => this.networks.delete(appKey));
      this.networks.set(appKey, pending);
    }
    return pending;
  }

  /** Binds of a one-off command: the release folder at /app, the read-only paths, the app's build cache or data folder. */
  private async buildBinds(spec: RunSpec): Promise<Bind[]> {
    const workDir = await prepareWorkDir(spec.workDir, { uid: APP_USER.uid, dataDir: this.options.dataDir, chown: "always" });
    const binds: Bind[] = [[workDir, "/app"], ...(spec.readOnlyPaths ?? []).map((dir): Bind => [dir, dir, "ro"])];
    if (spec.cacheDir) {
      await mkdir(spec.cacheDir, { recursive: true, mode: 0o700 });
      binds.push([await prepareWorkDir(spec.cacheDir, { uid: APP_USER.uid, dataDir: this.options.dataDir, chown: "if-not-owned" }), BUILD_CACHE_PATH]);
    }
    // A one-off run of the app's own (slipway run) sees its data folder, as its processes do.
    if (spec.dataDir) {
      await mkdir(spec.dataDir, { recursive: true, mode: 0o700 });
      binds.push([await prepareWorkDir(spec.dataDir, { uid: APP_USER.uid, dataDir: this.options.sharedDataDir ?? this.options.dataDir, chown: "always" }), DATA_PATH]);
    }
    return binds;
  }

  /** The release's image when buildImage() made it from a Dockerfile, else null (none yet, or not from a Dockerfile). */
  private async dockerfileImage(release: ReleaseRef): Promise<string | null> {
    const tag = releaseTag(release);
    return (await isDockerfileImage(this.docker, tag).catch(() => false)) ? tag : null;
  }

  private releaseImage(spec: InstanceSpec): Promise<ReleaseImage> {
    const release = releaseOf(spec);
    const key = `${spec.appKey}/${release.deploymentId}`;
    let pending = this.images.get(key);
    if (!pending) {
      pending = ensureReleaseImage(this.docker, {
        base: this.baseImage,
        release,
        dir: spec.workDir,
        labels: { [LABEL.platform]: this.platform, [LABEL.app]: spec.appKey },
      }).then(async (tag) => ({ tag, userImage: await isDockerfileImage(this.docker, tag) }));
      pending.catch(() => this.images.delete(key));
      this.images.set(key, pending);
    }
    return pending;
  }

  private async launch(spec: ProcessSpec & Pick<RunSpec, "terminal">, how: LaunchOptions): Promise<Running> {
    const { kind, image, userImage, binds, runtimeEnv, instanceId = randomUUID() } = how;
    // A user's image keeps its own PATH (FROM node:22 has node in /usr/local/bin); Slipway's images have /usr/bin.
    const platformPath: Record<string, string> = userImage ? {} : { PATH: "/usr/bin:/bin" };
    const env = { ...platformPath, HOST: "0.0.0.0", ...runtimeEnv, ...spec.env, ...(runtimeEnv.PORT ? { PORT: runtimeEnv.PORT } : {}) };
    const create = async () =>
      runContainer(this.docker, {
        name: `slipway-${this.platform}-${kind}-${instanceId}`,
        image,
        userImage,
        argv: spec.argv,
        env,
        labels: { ...how.labels, [LABEL.platform]: this.platform, [LABEL.app]: spec.appKey, [LABEL.instance]: instanceId, [LABEL.kind]: kind },
        network: await this.network(spec.appKey),
        limits: spec.limits,
        binds,
        onOutput: spec.onOutput,
        terminal: spec.terminal,
      });
    const container = await create().catch((error: Error) => {
      // The network went behind our back (a prune, another platform's reap of this DATA_DIR): make it again, once.
      if (!/network .*not found/i.test(error.message)) throw error;
      this.networks.delete(spec.appKey);
      return create();
    });
    return this.keep({ appKey: spec.appKey, kind, container });
  }

  private keep(running: Running): Running {
    this.running.add(running);
    void running.container.exited.finally(() => this.running.delete(running)).catch(() => {});
    return running;
  }

  /** The Instance of a web container, started or adopted. */
  private track(appKey: string, instanceId: string, container: RunningContainer): Instance {
    const exited = container.exited.finally(() => this.instances.delete(instance));
    const instance: Instance = {
      instanceId,
      appKey,
      pid: container.pid,
      target: { host: container.address, port: APP_PORT },
      exited,
      stop: (graceMs = this.graceMs) => this.stop(container, graceMs),
      stats: () => containerStats(this.docker, container.id),
    };
    this.instances.add(instance);
    return instance;
  }

  private async stop(container: RunningContainer, graceMs: number): Promise<void> {
    if (!container.hasExited()) {
      await container.signal("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
      const inTime = await Promise.race([container.exited.then(() => true), graceOver]);
      clearTimeout(timer);
      if (!inTime) await container.signal("SIGKILL");
    }
    await container.exited;
  }
}
