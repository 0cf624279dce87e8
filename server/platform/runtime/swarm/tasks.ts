// What Swarm runs for each of our services, polled once a second in one call for all of them (task events
// are not in the Engine API's event stream on 20.10). A task is an upstream while it runs (past its health
// check: with one, Swarm reports "running" only once healthy), is meant to run, and has its host port; it
// leaves the upstreams as soon as Swarm decides to stop it (desired state "shutdown"), which is usually
// before its container gets SIGTERM.
import type { Docker } from "../docker/client.ts";
import { APP_PORT, LABEL_DEPLOYMENT } from "./spec.ts";

export interface Upstream {
  taskId: string;
  host: string;
  port: number;
  deploymentId: string | null;
}

export interface TaskView {
  id: string;
  serviceId: string;
  state: string;
  desired: string;
  deploymentId: string | null;
  /** Why it ended (Swarm's Err, else its message), for a task that failed. */
  error: string | null;
  exitCode: number | null;
  createdAt: string;
  /** Which of the service's replicas it is (1…N), kept by the tasks that replace it. */
  slot: number | null;
  upstream: Upstream | null;
}

export interface ServiceTasks {
  tasks: TaskView[];
  upstreams: Upstream[];
}

export type TasksListener = (tasks: ServiceTasks) => void;

export class TaskWatcher {
  private readonly listeners = new Map<string, TasksListener>();
  private readonly nodes = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly docker: Docker,
    private readonly options: { intervalMs: number; onError(error: unknown): void },
  ) {}

  /** Calls `listener` after every poll with the service's tasks (until unwatch). */
  watch(serviceId: string, listener: TasksListener): void {
    this.listeners.set(serviceId, listener);
    if (!this.timer) this.timer = setInterval(() => void this.poll(), this.options.intervalMs);
  }

  unwatch(serviceId: string): void {
    this.listeners.delete(serviceId);
    if (this.listeners.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** One poll now (callers that just changed a service want its tasks without waiting a tick). */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce()
      .catch((error: unknown) => this.options.onError(error))
      .finally(() => {
        this.polling = null;
      });
    return this.polling;
  }

  close(): void {
    this.listeners.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The tasks of one service, as the watchers see them (for a caller that just listed them itself). */
  async snapshot(serviceId: string, raw: unknown[]): Promise<ServiceTasks> {
    return (await this.group(raw as RawTask[], [serviceId])).get(serviceId)!;
  }

  private async pollOnce(): Promise<void> {
    if (this.listeners.size === 0) return;
    const grouped = await this.group((await this.docker.listTasks()) as RawTask[], [...this.listeners.keys()]);
    for (const [id, tasks] of grouped) this.listeners.get(id)?.(tasks);
  }

  private async group(tasks: RawTask[], serviceIds: string[]): Promise<Map<string, ServiceTasks>> {
    if (tasks.some((t) => t.NodeID && !this.nodes.has(t.NodeID))) await this.refreshNodes();
    const byService = new Map<string, TaskView[]>(serviceIds.map((id) => [id, []]));
    for (const task of tasks) byService.get(task.ServiceID)?.push(this.view(task));
    const grouped = new Map<string, ServiceTasks>();
    for (const [id, views] of byService) {
      views.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      grouped.set(id, { tasks: views, upstreams: views.flatMap((v) => (v.upstream ? [v.upstream] : [])) });
    }
    return grouped;
  }

  private async refreshNodes(): Promise<void> {
    const nodes = (await this.docker.listNodes()) as { ID: string; Status?: { Addr?: string } }[];
    for (const node of nodes) if (node.Status?.Addr) this.nodes.set(node.ID, node.Status.Addr === "0.0.0.0" ? "127.0.0.1" : node.Status.Addr);
  }

  private view(task: RawTask): TaskView {
    const port = task.Status?.PortStatus?.Ports?.find((p) => p.TargetPort === APP_PORT && p.PublishedPort);
    const host = this.nodes.get(task.NodeID ?? "");
    const deploymentId = task.Spec?.ContainerSpec?.Labels?.[LABEL_DEPLOYMENT] ?? null;
    const serving = task.Status?.State === "running" && task.DesiredState === "running" && port && host;
    return {
      id: task.ID,
      serviceId: task.ServiceID,
      state: task.Status?.State ?? "unknown",
      desired: task.DesiredState ?? "unknown",
      deploymentId,
      error: task.Status?.Err || (task.Status?.State === "failed" || task.Status?.State === "rejected" ? (task.Status?.Message ?? null) : null),
      exitCode: task.Status?.ContainerStatus?.ExitCode ?? null,
      createdAt: task.CreatedAt ?? "",
      slot: task.Slot ?? null,
      upstream: serving ? { taskId: task.ID, host: host!, port: port.PublishedPort!, deploymentId } : null,
    };
  }
}

interface RawTask {
  ID: string;
  ServiceID: string;
  NodeID?: string;
  CreatedAt?: string;
  Slot?: number;
  DesiredState?: string;
  Spec?: { ContainerSpec?: { Labels?: Record<string, string> } };
  Status?: {
    State?: string;
    Message?: string;
    Err?: string;
    ContainerStatus?: { ExitCode?: number };
    PortStatus?: { Ports?: { TargetPort?: number; PublishedPort?: number }[] };
  };
}
