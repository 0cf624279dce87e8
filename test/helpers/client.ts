// A small HTTP client with a cookie jar, like a browser or a script keeping its session.
export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

let counter = 0;
export function uniqueName(prefix = "user"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 6)}`;
}

export class Client {
  cookie?: string;
  token?: string;

  constructor(readonly base: string) {}

  async request<T = any>(method: string, path: string, options: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Response<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie) headers.cookie = this.cookie;
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let body = options.body;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    }
    const res = await fetch(this.base + path, { method, headers, body, redirect: "manual" });
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith("slipway_session="));
    if (setCookie) {
      const value = setCookie.split(";")[0];
      this.cookie = value === "slipway_session=" ? undefined : value;
    }
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>("GET", path, { headers });
  }

  post<T = any>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>("POST", path, { json, headers });
  }

  graphql<T = any>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
    return this.request<{ data?: T; errors?: { message: string; extensions?: { code?: string } }[] }>("POST", "/graphql", {
      json: { query, variables },
      headers,
    });
  }

  /** Signs up a new account (unique email and name unless given) and keeps its session cookie. */
  async signup(overrides: Partial<{ email: string; password: string; name: string }> = {}) {
    const name = overrides.name ?? uniqueName();
    const input = { email: `${name}@example.com`, password: "correct horse battery", name, ...overrides };
    const res = await this.post("/api/auth/signup", input);
    if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { ...input, user: res.body.user as { id: string; name: string; email: string; role: string; status: string } };
  }
}
