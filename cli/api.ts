// How the CLI talks to a Slipway server: GraphQL over HTTP with the typed documents (cli/gql), the REST
// upload route, and the OAuth token endpoint. The access token comes from SLIPWAY_TOKEN or the stored login,
// refreshed when it is about to expire or the server turns it down (once per request, under the lock).
import { env } from "./env.ts";
import { CliError } from "./output.ts";
import { readCredentials, withCredentialsLock, writeCredentials, type Credentials } from "./credentials.ts";
import type { TypedDocumentString } from "./gql/graphql.ts";

export interface GlobalOptions {
  server?: string;
}

/** Refresh a little before the server would refuse the token. */
const EXPIRY_MARGIN_MS = 30_000;
const AUTH_FAILURES = new Set(["unauthenticated", "invalid_token"]);

export function normalizeServer(value: string): string {
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(value) ? value : `https://${value}`);
  } catch {
    throw new CliError(`"${value}" is not a server address; give a URL such as https://slipway.example.com.`);
  }
  return url.origin;
}

/** The server could not be reached, or the connection was lost: trying again later may work. */
export class NetworkError extends CliError {}

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT", "CERT_HAS_EXPIRED", "DEPTH_ZERO_SELF_SIGNED_CERT"]);

/** fetch, with a network failure told with the server it concerns (never reached, or lost on the way). */
export async function request(server: string, path: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(new URL(path, server), init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    if (cause?.code && !UNREACHABLE.has(cause.code)) throw new NetworkError(`The connection to the Slipway server at ${server} failed (${why}).`);
    throw new NetworkError(`Could not reach the Slipway server at ${server} (${why}).`);
  }
}

async function readJson(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return { message: text.slice(0, 200) };
  }
}

/** The OAuth token endpoint (form body), for the device grant and refresh. */
export async function tokenRequest(server: string, params: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await request(server, "/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: await readJson(res) };
}

export function credentialsFromToken(server: string, clientId: string, body: any, user?: Credentials["user"]): Credentials {
  return {
    server,
    clientId,
    accessToken: body.access_token,
    refreshToken: body.refresh_token ?? null,
    expiresAt: Date.now() + Number(body.expires_in ?? 3600) * 1000,
    ...(user ? { user } : {}),
  };
}

const LOGGED_OUT = "You are not logged in. Run `slipway login` (or set SLIPWAY_TOKEN).";

/**
 * Refreshes `stale` under the lock. Another command may have refreshed meanwhile (its new refresh token
 * replaced the one `stale` holds): then its tokens are used as they are, never the spent refresh token.
 */
async function refreshed(stale: Credentials): Promise<Credentials> {
  return withCredentialsLock(async () => {
    const current = readCredentials();
    if (!current || current.server !== stale.server) throw new CliError(LOGGED_OUT);
    if (current.accessToken !== stale.accessToken && current.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return current;
    if (!current.refreshToken) throw new CliError("Your login has expired. Run `slipway login` again.");
    const { status, body } = await tokenRequest(current.server, {
      grant_type: "refresh_token",
      refresh_token: current.refreshToken,
      client_id: current.clientId,
    });
    if (status !== 200) {
      if (body?.error === "invalid_grant") throw new CliError("Your login has expired or was revoked. Run `slipway login` again.");
      throw new CliError(`Refreshing your login failed: ${body?.error_description ?? body?.error ?? `HTTP ${status}`}`);
    }
    const next = credentialsFromToken(current.server, current.clientId, body, current.user);
    writeCredentials(next);
    return next;
  });
}

export class Api {
  private credentials: Credentials | null;

  private constructor(
    readonly server: string,
    private token: string,
    credentials: Credentials | null,
  ) {
    this.credentials = credentials;
  }

  /** The server and token to use: SLIPWAY_TOKEN (with --server, SLIPWAY_SERVER or the stored server) or the stored login. */
  static connect(options: GlobalOptions = {}): Api {
    const stored = readCredentials();
    const envToken = env.token();
    const wanted = options.server ?? env.server();
    if (envToken) {
      const server = wanted ?? stored?.server;
      if (!server) throw new CliError("SLIPWAY_TOKEN is set: give the server with --server or SLIPWAY_SERVER.");
      return new Api(normalizeServer(server), envToken, null);
    }
    if (!stored) throw new CliError(LOGGED_OUT);
    if (wanted && normalizeServer(wanted) !== stored.server) {
      throw new CliError(`You are logged in to ${stored.server}, not ${normalizeServer(wanted)}. Run \`slipway login --server ${wanted}\`.`);
    }
    return new Api(stored.server, stored.accessToken, stored);
  }

  /** These credentials exactly (a login just completed), whatever the environment says. */
  static fromCredentials(credentials: Credentials): Api {
    return new Api(credentials.server, credentials.accessToken, credentials);
  }

  get user() {
    return this.credentials?.user;
  }

  /** A usable access token (refreshed first when it is about to expire). */
  async accessToken(): Promise<string> {
    if (this.credentials && this.credentials.expiresAt - EXPIRY_MARGIN_MS <= Date.now()) await this.refresh();
    return this.token;
  }

  private async refresh(): Promise<boolean> {
    if (!this.credentials) return false;
    this.credentials = await refreshed(this.credentials);
    this.token = this.credentials.accessToken;
    return true;
  }

  /** An authorized request; when the server turns the token down, refreshes once and tries again. */
  async fetch(path: string, init: RequestInit = {}, body?: () => BodyInit): Promise<Response> {
    const send = async () =>
      request(this.server, path, { ...init, ...(body ? { body: body(), duplex: "half" } : {}), headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${await this.accessToken()}` } } as RequestInit);
    const res = await send();
    if (res.status === 401 && (await this.refresh())) return send();
    return res;
  }

  async graphql<R, V>(document: TypedDocumentString<R, V>, variables: V): Promise<R> {
    const run = async () => {
      const res = await request(this.server, "/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${await this.accessToken()}` },
        body: JSON.stringify({ query: document.toString(), variables }),
      });
      const body = await readJson(res);
      if (!body || (typeof body !== "object") || (!("data" in body) && !("errors" in body))) {
        throw new CliError(`The server at ${this.server} answered HTTP ${res.status} without a GraphQL result: ${body?.message ?? ""}`);
      }
      return { status: res.status, body: body as { data?: R; errors?: { message: string; extensions?: { code?: string } }[] } };
    };
    let { status, body } = await run();
    const authFailed = status === 401 || body.errors?.some((e) => AUTH_FAILURES.has(e.extensions?.code ?? ""));
    if (authFailed && (await this.refresh())) ({ status, body } = await run());
    if (body.errors?.length) {
      const error = body.errors[0];
      if (AUTH_FAILURES.has(error.extensions?.code ?? "")) {
        throw new CliError(this.credentials ? `${error.message} Run \`slipway login\` again.` : `${error.message} (the token in SLIPWAY_TOKEN was refused)`);
      }
      if (error.extensions?.code === "insufficient_scope" && this.credentials) {
        throw new CliError(`${error.message.split(".")[0]}: your login predates this command. Run \`slipway login\` again to grant it.`);
      }
      throw new CliError(error.message, 1, error.extensions?.code);
    }
    return body.data as R;
  }

  /** A WebSocket URL and connection params for graphql-ws. */
  async subscriptionTarget(): Promise<{ url: string; connectionParams: Record<string, string> }> {
    const url = new URL("/graphql", this.server);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    return { url: url.href, connectionParams: { authorization: `Bearer ${await this.accessToken()}` } };
  }
}

/** A mutation's union answer: the object, or its error member thrown as the server's message. */
export function unwrap<T extends object>(result: T): Exclude<T, { code: string; message: string }> {
  const value = result as unknown as { __typename?: string; code?: string; message?: string };
  if (value && typeof value.code === "string" && typeof value.message === "string" && value.__typename?.endsWith("Error")) {
    throw new CliError(value.message);
  }
  return result as Exclude<T, { code: string; message: string }>;
}
