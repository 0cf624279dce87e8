// The local runtime driver: builds and apps as sandboxed processes on this machine (see bwrap.ts,
// cgroups.ts, network.ts). Each app holds a slot (apps.ts, slots.ts) from its first run until removeApp: its uid,
// network namespace and cgroup. Each process gets its own cgroup below the app's with the spec's limits.
// Inside bubblewrap, app instances (web and every other process type) outlive the platform (kept.ts): close()
// leaves them running, and the next platform on the same DATA_DIR adopts those that run what it would start,
// taking over their app's slot.
import { randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { SandboxUnavailableError } from "../errors.ts";
import { instanceFingerprint } from "../fingerprint.ts";
import type { ExitInfo, Instance, InstanceSpec, ProcessSpec, RunResult, RunSpec, RuntimeDriver, SandboxReport } from "../types.ts";
import { LocalApps, type App } from "./apps.ts";
import { Cgroup } from "./cgroups.ts";
import { launch, type LaunchOptions, type Launched } from "./launch.ts";
import { PipePool, SPARE, keptRoot, killKept, launchKept, readRecords, reattachKept, writeRecord, type KeptLaunch, type KeptRecord } from "./kept.ts";
import { DATA_PATH } from "./bwrap.ts";
import { APP_RANGE, SERVICE_ADDRESS, setupServiceForward, type ForwardedService } from "./network.ts";
import { probe, type Enforcement } from "./probe.ts";
import { onPty } from "./pty.ts";
import { SlotRegistry, processStartTime } from "./slots.ts";
import { prepareWorkDir } from "./workdir.ts";

export interface LocalDriverOptions {
  /** The platform's DATA_DIR: release directories live below it, and reap() frees what it left behind. */
  dataDir: string;
  /** SHARED_DATA_DIR, where the apps' data folders are (DATA_DIR unless set). */
  sharedDataDir?: string;
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

/** An instance as the driver tracks it: its launch (a kept one is what close() leaves running). */
interface LocalInstance extends Instance {
  launched: Launched | KeptLaunch;
}

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
  return new LocalDriver(enforcement, { ...options, sharedDataDir: options.sharedDataDir ?? options.dataDir, uidBase, cgroupParent, graceMs: options.graceMs ?? 5000 }, new SlotRegistry(slotsDir, APP_RANGE.slots, self));
}

class LocalDriver implements RuntimeDriver {
  readonly name = "local";
  readonly sandbox: SandboxReport;
  private readonly apps: LocalApps;
  private readonly instances = new Set<LocalInstance>();
  /** The records adopt() took (or is taking): reap() kills the others. */
  private readonly adopted = new Set<string>();
  /** What an earlier platform left running, read once by the first adopt() of a boot. */
  private leftBehind: Promise<KeptRecord[]> | null = null;
  private readonly pipes: PipePool;

  constructor(
    private readonly e: Enforcement,
    private readonly options: Required<Omit<LocalDriverOptions, "slotsDir" | "forward">> & Pick<LocalDriverOptions, "forward">,
    private readonly slots: SlotRegistry,
  ) {
    this.sandbox = e.report;
    this.apps = new LocalApps(e, options, slots);
    this.pipes = new PipePool(path.join(this.keptRoot, SPARE));
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
    const app = await this.apps.of(spec.appKey);
    const workDir = await prepareWorkDir(spec.workDir, { uid: app.uid, dataDir: this.options.dataDir, chown: "always" });
    const cacheDir = spec.cacheDir ? await this.prepareCacheDir(spec.cacheDir, app) : undefined;
    const dataDir = spec.dataDir ? await this.prepareDataDir(spec.dataDir, app) : undefined;
    const pty = spec.terminal && onPty(spec.argv, spec.terminal);
    const command = pty ? { argv: pty.argv, stdin: pty.stdin } : { argv: spec.argv };
    const { launched, cgroup } = await this.launch(app, { ...spec, ...command, workDir, cacheDir, dataDir }, { ...this.baseEnv(spec, workDir), ...pty?.env });
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
    const app = await this.apps.of(spec.appKey);
    const workDir = await prepareWorkDir(spec.workDir, { uid: app.uid, dataDir: this.options.dataDir, chown: "if-not-owned" });
    const dataDir = spec.dataDir ? await this.prepareDataDir(spec.dataDir, app) : undefined;
    const process = spec.process ?? "web";
    const web = process === "web";
    const port = web ? await this.apps.port(app) : 0;
    try {
      const env = { ...this.baseEnv(spec, workDir), ...(web ? { PORT: String(port) } : {}) };
      const record = this.e.bwrap ? { instanceId: spec.instanceId, appKey: spec.appKey, slot: app.slot, process, index: spec.index, fingerprint: instanceFingerprint(spec, DATA_PATH), port } : undefined;
      const { launched, cgroup } = await this.launch(app, { ...spec, workDir, dataDir }, env, record);
      return this.track(app, spec.instanceId, launched, cgroup, port);
    } catch (error) {
      app.ports.delete(port);
      throw error;
    }
  }

  async adopt(spec: InstanceSpec & { index: number }): Promise<Instance | null> {
    if (!this.e.bwrap) return null;
    const fingerprint = instanceFingerprint(spec, DATA_PATH);
    this.leftBehind ??= readRecords(this.keptRoot).then((found) => found.records);
    const records = await this.leftBehind;
    const process = spec.process ?? "web";
    const matches = (r: KeptRecord) => r.appKey === spec.appKey && r.process === process && r.index === spec.index && r.fingerprint === fingerprint;
    for (const record of records.filter((r) => matches(r) && r.monitor.pid > 0 && !this.adopted.has(r.instanceId))) {
      this.adopted.add(record.instanceId);
      const app = await this.apps.takeOver(record.appKey, record.slot);
      const cgroup = this.cgroupOf(record);
      const launched = app && reattachKept(this.keptRoot, record, spec.onOutput, cgroup);
      if (!app || !launched) {
        this.adopted.delete(record.instanceId);
        continue;
      }
      app.ports.add(record.port);
      app.running.add(launched);
      return this.track(app, record.instanceId, launched, cgroup, record.port);
    }
    return null;
  }

  list(): Instance[] {
    return [...this.instances];
  }

  /** Kills the instances an earlier platform left that adopt() did not take, then frees the slots it left. */
  async reap(): Promise<void> {
    const { records, unrecorded } = await readRecords(this.keptRoot);
    for (const record of records.filter((r) => !this.adopted.has(r.instanceId))) await killKept(this.keptRoot, record, this.cgroupOf(record));
    for (const name of unrecorded) await rm(path.join(this.keptRoot, name), { recursive: true, force: true });
    for (const claim of await this.slots.abandoned()) await this.apps.teardown(claim.slot);
  }

  async removeApp(appKey: string): Promise<void> {
    const pending = this.apps.find(appKey);
    if (!pending) return;
    const app = await pending.catch(() => undefined);
    if (!app) return;
    await Promise.all([...this.instances].filter((i) => i.appKey === appKey).map((i) => i.stop()));
    await Promise.all([...app.running].map((p) => p.killTree()));
    this.apps.forget(appKey);
    await this.apps.teardown(app.slot);
  }

  /** Web instances still running inside bubblewrap keep running (the next platform adopts them); the rest stops. */
  async close(): Promise<void> {
    const keptApps = new Set<string>();
    for (const instance of this.instances) {
      const launched = instance.launched;
      if (!("detach" in launched) || launched.hasExited()) continue;
      launched.detach();
      this.instances.delete(instance);
      keptApps.add(instance.appKey);
      (await this.apps.find(instance.appKey))?.running.delete(launched);
    }
    await Promise.all(this.apps.keys().map((key) => (keptApps.has(key) ? this.stopAll(key) : this.removeApp(key))));
  }

  /** Stops every process of an app but keeps its slot. */
  private async stopAll(appKey: string): Promise<void> {
    const app = await this.apps.find(appKey)?.catch(() => undefined);
    await Promise.all([...this.instances].filter((i) => i.appKey === appKey).map((i) => i.stop()));
    await Promise.all([...(app?.running ?? [])].map((p) => p.killTree()));
  }

  private get keptRoot(): string {
    return keptRoot(this.options.dataDir);
  }

  private cgroupOf(record: KeptRecord): Cgroup | undefined {
    return record.cgroup ? new Cgroup(this.e.cgroups, record.cgroup) : undefined;
  }

  private track(app: App, instanceId: string, launched: Launched, cgroup: Cgroup | undefined, port: number): Instance {
    const exited = this.finish(app, launched, cgroup).finally(() => {
      app.ports.delete(port);
      this.instances.delete(instance);
    });
    const instance: LocalInstance = {
      instanceId,
      appKey: app.key,
      pid: launched.pid,
      target: { host: app.network?.appAddress ?? "127.0.0.1", port },
      exited,
      stop: (graceMs = this.options.graceMs) => this.stop(launched, exited, graceMs),
      ...(cgroup ? { stats: () => cgroup.usage() } : {}),
      launched,
    };
    this.instances.add(instance);
    return instance;
  }

  /** The app's data directory, created 0700 and owned by the app's uid (its slot, hence uid, may change). */
  private async prepareDataDir(dir: string, app: App): Promise<string> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // "always": the platform creates and restores database files in it as root.
    return prepareWorkDir(dir, { uid: app.uid, dataDir: this.options.sharedDataDir ?? this.options.dataDir, chown: "always" });
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

  private baseEnv(spec: ProcessSpec, workDir: string): Record<string, string> {
    const home = this.e.bwrap ? "/app" : workDir;
    const host = this.e.network ? "0.0.0.0" : "127.0.0.1";
    return { HOME: home, PATH: "/usr/bin:/bin", HOST: host, ...spec.env };
  }

  /** With a record: an instance that outlives the platform (kept.ts), recorded before it starts and once it runs. */
  private async launch(app: App, spec: ProcessSpec & { stdin?: Readable }, env: Record<string, string>, record?: Omit<KeptRecord, "monitor" | "sandboxInit" | "commandPid" | "cgroup">) {
    const cgroup = app.cgroup?.child(record ? `i-${record.instanceId}` : `r-${randomUUID()}`);
    await cgroup?.create(spec.limits);
    try {
      if (record) {
        const starting: KeptRecord = { ...record, monitor: { pid: 0, startTime: 0 }, sandboxInit: 0, commandPid: 0, cgroup: cgroup?.relPath };
        await writeRecord(this.keptRoot, starting);
        const launched = await launchKept({ ...this.launchOptions(app, spec, env, cgroup), root: this.keptRoot, instanceId: record.instanceId, pipes: this.pipes });
        app.running.add(launched);
        await writeRecord(this.keptRoot, { ...starting, monitor: launched.monitor, sandboxInit: launched.sandboxInit, commandPid: launched.pid });
        return { launched, cgroup };
      }
      const launched = await launch(this.launchOptions(app, spec, env, cgroup));
      app.running.add(launched);
      return { launched, cgroup };
    } catch (error) {
      await cgroup?.remove();
      throw error;
    }
  }

  private launchOptions(app: App, spec: ProcessSpec & { stdin?: Readable }, env: Record<string, string>, cgroup: Cgroup | undefined): LaunchOptions {
    return {
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
    };
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
}
