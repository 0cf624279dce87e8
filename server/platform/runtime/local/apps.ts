// Each app's share of this machine while it runs here (driver.ts): a slot (slots.ts), held from its first process
// until removeApp, and what derives from the slot's number: its uid, network namespace and cgroup; and the ports
// its web instances listen on. An app whose instances an earlier platform on this DATA_DIR left running is taken
// over in the slot it had.
import { createServer } from "node:net";
import { Cgroup } from "./cgroups.ts";
import type { Launched } from "./launch.ts";
import { appNetwork, createAppNetwork, removeAppNetwork, setupHostNetwork, setupServiceForward, type AppNetwork, type ForwardedService } from "./network.ts";
import type { Enforcement } from "./probe.ts";
import type { SlotRegistry } from "./slots.ts";

export interface App {
  key: string;
  slot: number;
  uid?: number;
  network?: AppNetwork;
  cgroup?: Cgroup;
  ports: Set<number>;
  running: Set<Launched>;
}

export interface LocalAppsOptions {
  /** The uid of slot n is uidBase + n. */
  uidBase: number;
  /** The cgroup (below each controller's mount) holding every app's group. */
  cgroupParent: string;
  forward?: ForwardedService;
}

const FIRST_PORT = 8000;

export class LocalApps {
  private readonly apps = new Map<string, Promise<App>>();

  constructor(
    private readonly e: Enforcement,
    private readonly options: LocalAppsOptions,
    private readonly slots: SlotRegistry,
  ) {}

  /** The app's slot, uid, network namespace and cgroup, created on its first process. */
  of(key: string): Promise<App> {
    let pending = this.apps.get(key);
    if (!pending) {
      pending = this.createApp(key);
      pending.catch(() => this.apps.delete(key));
      this.apps.set(key, pending);
    }
    return pending;
  }

  /** The app, if it holds a slot here (or is being given one). */
  find(key: string): Promise<App> | undefined {
    return this.apps.get(key);
  }

  keys(): string[] {
    return [...this.apps.keys()];
  }

  /** The app no longer holds its slot here (freeing the slot is teardown's). */
  forget(key: string): void {
    this.apps.delete(key);
  }

  /** The app's slot as an earlier platform on this DATA_DIR left it (uid, namespace, cgroup in place), now ours. */
  async takeOver(key: string, slot: number): Promise<App | null> {
    let pending = this.apps.get(key);
    if (!pending) {
      pending = this.slots.takeOver(slot, key).then((taken) => {
        if (!taken) throw new Error(`slot ${slot} is not ${key}'s to take over`);
        return this.appInSlot(key, slot);
      });
      pending.catch(() => this.apps.delete(key));
      this.apps.set(key, pending);
    }
    const app = await pending.catch(() => null);
    return app?.slot === slot ? app : null;
  }

  /** Frees a slot: kills what is left in its cgroup, removes the cgroup and the network, gives up the claim. */
  async teardown(slot: number): Promise<void> {
    const { cgroup, network } = this.appInSlot("", slot);
    await cgroup?.remove();
    if (network) await removeAppNetwork(network);
    await this.slots.release(slot);
  }

  /** A port of its own for each instance: old and new run side by side in the app's namespace. */
  async port(app: App): Promise<number> {
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

  private async createApp(key: string): Promise<App> {
    const slot = await this.slots.claim(key);
    try {
      const app = this.appInSlot(key, slot);
      if (app.network) {
        // Another platform on this machine may have rewritten the host-wide tables since boot: set them again.
        if (this.options.forward) {
          await setupHostNetwork();
          await setupServiceForward(this.options.forward);
        }
        await createAppNetwork(app.network);
      }
      await app.cgroup?.create();
      return app;
    } catch (error) {
      await this.teardown(slot);
      throw error;
    }
  }

  /** What an app holds in a slot: all derived from its number. */
  private appInSlot(key: string, slot: number): App {
    const cgroups = Object.keys(this.e.cgroups).length > 0;
    return {
      key,
      slot,
      ports: new Set(),
      running: new Set(),
      uid: this.e.uids ? this.options.uidBase + slot : undefined,
      network: this.e.network ? appNetwork(slot) : undefined,
      cgroup: cgroups ? new Cgroup(this.e.cgroups, `${this.options.cgroupParent}/${slot}`) : undefined,
    };
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
