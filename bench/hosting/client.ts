// What the hosting bench needs of the API: apps, zip uploads, deployments, and requests to an app by Host.
import autocannon, { type Result } from "autocannon";
import http from "node:http";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import yazl from "yazl";

/** Load that runs until stopped (in this process: these benches count failures and latency, not capacity). */
export function startLoad(options: { url: string; headers?: Record<string, string>; connections: number }): { stop(): Promise<Result> } {
  let finish!: (result: Result) => void;
  let fail!: (error: Error) => void;
  const finished = new Promise<Result>((resolve, reject) => ((finish = resolve), (fail = reject)));
  const instance = autocannon({ ...options, duration: 3600 }, (error, result) => (error ? fail(error) : finish(result)));
  return {
    stop() {
      instance.stop();
      return finished;
    },
  };
}

export const nodeApp = (serverJs: string): Record<string, string> => ({
  "package.json": JSON.stringify({ name: "bench-app", version: "1.0.0" }),
  "server.js": serverJs,
});

export function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, contents] of Object.entries(files)) zip.addBuffer(Buffer.from(contents), name);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks))).on("error", reject);
  });
}

export interface DeploymentView {
  id: string;
  status: string;
  error: string | null;
  steps: { name: string; ms: number }[];
}

export class HostingClient {
  readonly port: string;
  private readonly agent = new http.Agent({ keepAlive: true });

  constructor(
    readonly base: string,
    readonly cookie: string,
  ) {
    this.port = new URL(base).port;
  }

  async api(method: string, pathname: string, body?: unknown): Promise<any> {
    const res = await fetch(this.base + pathname, {
      method,
      headers: { cookie: this.cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${pathname}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  async createApp(slug: string): Promise<void> {
    await this.api("POST", "/api/apps", { slug });
  }

  async upload(slug: string, zip: Buffer): Promise<DeploymentView> {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(zip)]), "app.zip");
    const res = await fetch(`${this.base}/api/apps/${slug}/deploy`, { method: "PUT", headers: { cookie: this.cookie }, body: form });
    if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
    return res.json() as Promise<DeploymentView>;
  }

  async deployment(slug: string, id: string): Promise<DeploymentView> {
    const app = await this.api("GET", `/api/apps/${slug}`);
    return app.deployments.find((d: DeploymentView) => d.id === id);
  }

  /** A GET of the app through the platform's port; null when it does not answer. */
  get(slug: string, pathname = "/"): Promise<{ status: number; body: string } | null> {
    return new Promise((resolve) => {
      const req = http.get({ host: "127.0.0.1", port: this.port, path: pathname, agent: this.agent, headers: { host: `${slug}.localhost:${this.port}` } }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (c) => (body += c)).on("end", () => resolve({ status: res.statusCode!, body }));
      });
      req.on("error", () => resolve(null));
    });
  }

  /** Polls GET / every 2 ms until it answers `text`. */
  async waitForAnswer(slug: string, text: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await this.get(slug);
      if (res?.status === 200 && res.body === text) return;
      if (Date.now() > deadline) throw new Error(`${slug} never answered ${text}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /**
   * Resolves once the deployment is in one of `statuses`, as the app subscription (graphql-ws) tells it: the moment
   * it changes, with no polling during the build (which would take CPU from it on 2 cores).
   */
  async untilStatus(slug: string, id: string, statuses: string[]): Promise<{ status: string; error: string | null }> {
    const client = createClient({ url: `${this.base.replace(/^http/, "ws")}/graphql`, lazy: false, ...this.wsHeaders() });
    try {
      const query = "subscription ($slug: String!) { app(slug: $slug) { deployments(limit: 5) { id status error } } }";
      for await (const event of client.iterate<{ app: { deployments: { id: string; status: string; error: string | null }[] } }>({ query, variables: { slug } })) {
        const deployment = event.data?.app.deployments.find((d) => d.id === id);
        if (deployment && statuses.includes(deployment.status)) return deployment;
        if (event.errors?.length) throw new Error(event.errors.map((e) => e.message).join("; "));
      }
      throw new Error(`the app subscription of ${slug} ended before deployment ${id} was ${statuses.join(" or ")}`);
    } finally {
      await client.dispose();
    }
  }

  /** The session cookie on the WebSocket's upgrade request, as a browser sends it. */
  private wsHeaders(): { webSocketImpl: typeof WebSocket } {
    const cookie = this.cookie;
    return {
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers: { cookie, origin: new URL(address.replace(/^ws/, "http")).origin } });
        }
      } as unknown as typeof WebSocket,
    };
  }

  async waitForSettled(slug: string, id: string): Promise<DeploymentView> {
    for (;;) {
      const d = await this.deployment(slug, id);
      if (["LIVE", "FAILED", "CANCELED", "SUPERSEDED"].includes(d.status)) return d;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
