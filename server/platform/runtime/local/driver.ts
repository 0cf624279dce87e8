// The local runtime driver: builds and apps as sandboxed processes on this machine (see bwrap.ts,
// cgroups.ts, network.ts). Each app holds a slot (slots.ts) from its first run until removeApp: its uid,
// network namespace and cgroup. Each process gets its own cgroup below the app's with the spec's limits.
import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { SandboxUnavailableError } from "../errors.ts";
import type { ExitInfo, Instance, InstanceSpec, ProcessSpec, RunResult, RunSpec, RuntimeDriver, SandboxReport } from "../types.ts";
import { Cgroup } from "./cgroups.ts";
import { launch, type Launched } from "./launch.ts";
import { DATA_PATH } from "./bwrap.ts";
import { APP_RANGE, SERVICE_ADDRESS, appNetwork, createAppNetwork, removeAppNetwork, setupHostNetwork, setupServiceForward, type AppNetwork, type ForwardedService } from "./network.ts";
import { probe, type Enforcement } from "./probe.ts";
import { SlotRegistry, processStartTime } from "./slots.ts";
import { prepareWorkDir } from "./workdir.ts";

export interface LocalDriverOptions {
  /** The platform's DATA_DIR: release directories live below it, and reap() frees what it left behind. */
  dataDir: string;
  /** Run builds and apps even when a sandbox layer is unavailable (SANDBOX_ALLOW_PARTIAL). */
  allowPartial: boolean;
  /** The uid of slot n is uidBase + n. */
  uidBase?: number;
  /** Host-wide folder of slot claims, shared by every platform on the machine. */
  slotsDir?: string;
  /** The cgroup (below each controller's mount) holding every app's group. */
  cgroupParent?: string;
  /** How long stop() waits after SIGTERM by default. */
  graceMs?: number;
  /** The one host service apps may reach (the PostgreSQL server of app databases), at SERVICE_ADDRESS. */
  forward?: ForwardedService;
}

interface App {
  key: string;
  slot: number;
  uid?: number;
  network?: AppNetwork;
  cgroup?: Cgroup;
  ports: Set<number>;
  running: Set<Launched>;
}

const FIRST_PORT = 8000;

export async function createLocalDriver(options: LocalDriverOptions): Promise<RuntimeDriver> {
  const uidBase = options.uidBase ?? 200_000;
  const cgroupParent = options.cgroupParent ?? "slipway";
  const enforcement = await probe({ uidBase, cgroupParent });
  const slotsDir = options.slotsDir ?? (enforcement.root ? "/run/slipway/slots" : path.join(os.tmpdir(), `slipway-${process.getuid?.()}`, "slots"));
  const self = { dataDir: path.resolve(options.dataDir), pid: process.pid, startTime: processStartTime("self") ?? 0 };
  if (options.forward && enforcement.network) {
    await setupServiceForward(options.forward);
    const { host, port } = options.forward;
    const network = enforcement.report.layers.find((l) => l.name === "network");
    if (network) network.detail += `; one exception: the PostgreSQL server of app databases (${host}:${port}), at ${SERVICE_ADDRESS}:${port} only`;
  }
  return new LocalDriver(enforcement, { ...options, uidBase, cgroupParent, graceMs: options.graceMs ?? 5000 }, new SlotRegistry(slotsDir, APP_RANGE.slots, self));
}

class LocalDriver implements RuntimeDriver {
  readonly name = "local";
  readonly sandbox: SandboxReport;
  private readonly apps = new Map<string, Promise<App>>();
  private readonly instances = new Set<Instance>();
  private sequence = 0;

  constructor(
    private readonly e: Enforcement,
    private readonly options: Required<Omit<LocalDriverOptions, "slotsDir" | "forward">> & Pick<LocalDriverOptions, "forward">,
    private readonly slots: SlotRegistry,
  ) {
    this.sandbox = e.report;
  }

  get dataPath(): string | null {
    return this.e.bwrap ? DATA_PATH : null;
  }

  /** Only inside bubblewrap: its pid namespace ends the pty's own session with the run (a timeout, a cancel). */
  get terminals(): boolean {
    return this.e.bwrap;
  }

  appEndpoint(service: { host: string; port: number }): { host: string; port: number } {
    const forward = this.options.forward;
    const forwarded = this.e.network && forward && forward.host === service.host && forward.port === service.port;
    return forwarded ? { host: SERVICE_ADDRESS, port: service.port } : service;
  }

  async run(spec: RunSpec): Promise<RunResult> {
    this.refuseUnlessAllowed();
    if (spec.signal?.aborted) return { code: null, signal: null, timedOut: false, aborted: true };
    const app = await this.app(spec.appKey);
    const workDir = await prepareWorkDir(spec.workDir, { uid: app.uid, dataDir: this.options.dataDir, chown: "always" });
    const cacheDir = spec.cacheDir ? await this.prepareCacheDir(spec.cacheDir, app) : undefined;
    const dataDir = spec.dataDir ? await this.prepareDataDir(spec.dataDir, app) : undefined;
    const { launched, cgroup } = await this.launch(app, { ...spec, workDir, cacheDir, dataDir }, this.baseEnv(spec, workDir));
    let timedOut = false;
    let aborted = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void launched.killTree();
    }, spec.timeoutMs);
    const onAbort = () => {
      aborted = true;
      void launched.killTree();
    };
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    // Aborted while the sandbox was being set up: the event fired before anyone listened.
    if (spec.signal?.aborted) onAbort();
    try {
      return { ...(await this.finish(app, launched, cgroup)), timedOut, aborted };
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
    }
  }

  async start(spec: InstanceSpec): Promise<Instance> {
    this.refuseUnlessAllowed();
    const app = await this.app(spec.appKey);
    const workDir = await prepareWorkDir(spec.workDir, { uid: app.uid, dataDir: this.options.dataDir, chown: "if-not-owned" });
    const dataDir = spec.dataDir ? await this.prepareDataDir(spec.dataDir, app) : undefined;
    const web = (spec.process ?? "web") === "web";
    const port = web ? await this.port(app) : 0;
    try {
      const env = { ...this.baseEnv(spec, workDir), ...(web ? { PORT: String(port) } : {}) };
      const { launched, cgroup } = await this.launch(app, { ...spec, workDir, dataDir }, env);
      const exited = this.finish(app, launched, cgroup).finally(() => {
        app.ports.delete(port);
        this.instances.delete(instance);
      });
      const instance: Instance = {
        instanceId: spec.instanceId,
        appKey: spec.appKey,
        pid: launched.pid,
        target: { host: app.network?.appAddress ?? "127.0.0.1", port },
        exited,
        stop: (graceMs = this.options.graceMs) => this.stop(launched, exited, graceMs),
      };
      this.instances.add(instance);
      return instance;
    } catch (error) {
      app.ports.delete(port);
      throw error;
    }
  }

  list(): Instance[] {
    return [...this.instances];
  }

  async reap(): Promise<void> {
    for (const claim of await this.slots.abandoned()) await this.teardown(claim.slot);
  }

  async removeApp(appKey: string): Promise<void> {
    const pending = this.apps.get(appKey);
    if (!pending) return;
    const app = await pending.catch(() => undefined);
    if (!app) return;
    await Promise.all([...this.instances].filter((i) => i.appKey === appKey).map((i) => i.stop()));
    await Promise.all([...app.running].map((p) => p.killTree()));
    this.apps.delete(appKey);
    await this.teardown(app.slot);
  }

  async close(): Promise<void> {
    await Promise.all([...this.apps.keys()].map((key) => this.removeApp(key)));
  }

  /** The app's data directory, created 0700 and owned by the app's uid (its slot, hence uid, may change). */
  private async prepareDataDir(dir: string, app: App): Promise<string> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // "always": the platform creates and restores database files in it as root.
    return prepareWorkDir(dir, { uid: app.uid, dataDir: this.options.dataDir, chown: "always" });
  }

  /** The app's build cache: owned by its uid, re-owned (whole) only when the app's slot, hence uid, changed. */
  private async prepareCacheDir(dir: string, app: App): Promise<string> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return prepareWorkDir(dir, { uid: app.uid, dataDir: this.options.dataDir, chown: "if-not-owned" });
  }

  private refuseUnlessAllowed(): void {
    const missing = this.sandbox.layers.filter((l) => !l.enforced).map((l) => l.name);
    if (missing.length > 0 && !this.options.allowPartial) throw new SandboxUnavailableError(missing);
  }

  /** The app's slot, uid, network namespace and cgroup, created on its first process. */
  private app(key: string): Promise<App> {
    let pending = this.apps.get(key);
    if (!pending) {
      pending = this.createApp(key);
      pending.catch(() => this.apps.delete(key));
      this.apps.set(key, pending);
    }
    return pending;
  }

  private async createApp(key: string): Promise<App> {
    const slot = await this.slots.claim(key);
    try {
      const app: App = { key, slot, ports: new Set(), running: new Set() };
      if (this.e.uids) app.uid = this.options.uidBase + slot;
      if (this.e.network) {
        // Another platform on this machine may have rewritten the host-wide tables since boot: set them again.
        if (this.options.forward) {
          await setupHostNetwork();
          await setupServiceForward(this.options.forward);
        }
        app.network = appNetwork(slot);
        await createAppNetwork(app.network);
      }
      if (Object.keys(this.e.cgroups).length > 0) {
        app.cgroup = new Cgroup(this.e.cgroups, `${this.options.cgroupParent}/${slot}`);
        await app.cgroup.create();
      }
      return app;
    } catch (error) {
      await this.teardown(slot);
      throw error;
    }
  }

  /** Frees a slot: kills what is left in its cgroup, removes the cgroup and the network, gives up the claim. */
  private async teardown(slot: number): Promise<void> {
    if (Object.keys(this.e.cgroups).length > 0) await new Cgroup(this.e.cgroups, `${this.options.cgroupParent}/${slot}`).remove();
    if (this.e.network) await removeAppNetwork(appNetwork(slot));
    await this.slots.release(slot);
  }

  private baseEnv(spec: ProcessSpec, workDir: string): Record<string, string> {
    const home = this.e.bwrap ? "/app" : workDir;
    const host = this.e.network ? "0.0.0.0" : "127.0.0.1";
    return { HOME: home, PATH: "/usr/bin:/bin", HOST: host, ...spec.env };
  }

  private async launch(app: App, spec: ProcessSpec & Pick<RunSpec, "stdin">, env: Record<string, string>) {
    const cgroup = app.cgroup?.child(`p${process.pid}-${++this.sequence}`);
    await cgroup?.create(spec.limits);
    try {
      const launched = await launch({
        bwrap: this.e.bwrap,
        workDir: spec.workDir,
        argv: spec.argv,
        env,
        dataDir: spec.dataDir,
        cacheDir: spec.cacheDir,
        readOnlyPaths: spec.readOnlyPaths,
        uid: app.uid,
        netns: app.network?.netns,
        cgroup,
        onOutput: spec.onOutput,
        stdin: spec.stdin,
      });
      app.running.add(launched);
      return { launched, cgroup };
    } catch (error) {
      await cgroup?.remove();
      throw error;
    }
  }

  private async finish(app: App, launched: Launched, cgroup: Cgroup | undefined): Promise<ExitInfo & { oomKilled: boolean }> {
    const exit = await launched.exited;
    app.running.delete(launched);
    const oomKilled = (await cgroup?.oomKills()) ? true : false;
    await cgroup?.remove();
    return { ...exit, oomKilled };
  }

  private async stop(launched: Launched, exited: Promise<ExitInfo>, graceMs: number): Promise<void> {
    if (!launched.hasExited()) {
      try {
        process.kill(launched.pid, "SIGTERM");
      } catch {
        // already gone
      }
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
      const inTime = await Promise.race([exited.then(() => true), graceOver]);
      clearTimeout(timer);
      if (!inTime) await launched.killTree();
    }
    await exited;
  }

  /** A port of its own for each instance: old and new run side by side in the app's namespace. */
  private async port(app: App): Promise<number> {
    let port: number;
    if (app.network) {
      for (port = FIRST_PORT; app.ports.has(port); port++);
    } else {
      do port = await freeHostPort();
      while (app.ports.has(port));
    }
    app.ports.add(port);
    return port;
  }
}

function freeHostPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
