// The WebSocket an interactive run's terminal attaches over: `/api/runs/:id/attach`, with the same credentials as
// the API (the session cookie, or `Authorization: Bearer …` on the handshake) and the write:apps scope. Refusals
// are HTTP answers with the REST error body, before any upgrade. Once attached: binary frames carry keystrokes in
// and the terminal's output out; text frames carry `{"type": "resize", "cols", "rows"}` in and, at the end,
// `{"type": "exit", "status", "exitCode", "error"}` out, then the socket closes.
import type { IncomingMessage } from "node:http";
import http from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { SESSION_COOKIE } from "../auth/viewer.ts";
import { AccountPendingError, AccountSuspendedError, AppError, CsrfError, InsufficientScopeError, UnauthenticatedError, toAppError } from "../errors.ts";
import type { AttachedTerminal } from "../hosting/runs/runner.ts";
import { TerminalChannel, terminalSize } from "../hosting/runs/terminal.ts";
import type { Platform } from "../platform/index.ts";
import { restErrorBody } from "./errors.ts";
import { isCrossSiteCookie } from "./origin.ts";
import { countRequest } from "./rate-limit.ts";

export const RUN_ATTACH_PATH = /^\/api\/runs\/([A-Za-z0-9_-]{1,64})\/attach$/;
/** Output waiting for a client past this is a client that cannot keep up: it is disconnected (the run hangs up). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** A client that answers no ping within this is gone (a laptop asleep, a dropped NAT entry). */
const PING_INTERVAL_MS = 30_000;

export function runTerminalUpgrade(platform: Platform, parseCookie: (header: string) => Record<string, string | undefined>) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const publicUrl = new URL(platform.config.publicUrl);

  /** Who attaches to which run, or the error that refuses the handshake. */
  async function admit(request: IncomingMessage): Promise<{ userId: string; runId: string }> {
    const runId = RUN_ATTACH_PATH.exec(request.url!.split("?")[0])![1];
    const credentials = { sessionToken: parseCookie(request.headers.cookie ?? "")[SESSION_COOKIE], authorization: request.headers.authorization };
    if (isCrossSiteCookie(credentials, request.headers, publicUrl)) throw new CsrfError();
    const auth = await platform.authenticate(credentials);
    if (!auth.viewer) throw auth.error ?? new UnauthenticatedError();
    if (auth.viewer.user.status === "SUSPENDED") throw new AccountSuspendedError();
    if (auth.viewer.user.status !== "ACTIVE") throw new AccountPendingError();
    if (!auth.viewer.scopes.has("write:apps")) throw new InsufficientScopeError("write:apps");
    const { refusal } = await countRequest(platform, { viewer: auth.viewer, ip: request.socket.remoteAddress });
    if (refusal) throw refusal;
    // The run is the caller's and waits for its terminal here (404 and 409 otherwise).
    await platform.services.runs.checkAttachable(auth.viewer.user.id, runId);
    return { userId: auth.viewer.user.id, runId };
  }

  return async (request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    let admitted;
    try {
      admitted = await admit(request);
    } catch (error) {
      return refuse(socket, toAppError(error));
    }
    wss.handleUpgrade(request, socket, head, (ws) => void attach(ws, admitted));
  };

  async function attach(ws: WebSocket, { userId, runId }: { userId: string; runId: string }): Promise<void> {
    const channel = new TerminalChannel();
    let ended = false;
    ws.on("message", (data, isBinary) => (isBinary ? channel.type(asBuffer(data)) : control(asBuffer(data).toString(), channel)));
    let alive = true;
    ws.on("pong", () => (alive = true));
    const pinger = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, PING_INTERVAL_MS);
    ws.on("close", () => {
      clearInterval(pinger);
      channel.hangUp();
      if (!ended) platform.services.runs.hungUp(runId);
    });
    const terminal: AttachedTerminal = {
      channel,
      output: (chunk) => (ws.bufferedAmount > MAX_BUFFERED_BYTES ? ws.terminate() : ws.send(chunk, { binary: true })),
      ended: ({ status, exitCode, error }) => {
        ended = true;
        ws.send(JSON.stringify({ type: "exit", status, exitCode, error }));
        ws.close(1000);
      },
    };
    try {
      await platform.services.runs.attach(userId, runId, terminal);
    } catch (error) {
      const appError = toAppError(error);
      ws.close(4000 + (appError.status < 1000 ? appError.status : 500), appError.message.slice(0, 120));
    }
  }
}

/** A resize; anything else a client sends as text is ignored. */
function control(text: string, channel: TerminalChannel): void {
  let message: { type?: unknown; cols?: unknown; rows?: unknown };
  try {
    message = JSON.parse(text);
  } catch {
    return;
  }
  const size = message?.type === "resize" ? terminalSize(message) : null;
  if (size) channel.resize(size);
}

function asBuffer(data: RawData): Buffer {
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
}

function refuse(socket: Duplex, error: AppError): void {
  const body = JSON.stringify(restErrorBody(error));
  const headers = [`content-type: application/json`, `content-length: ${Buffer.byteLength(body)}`, "connection: close", ...Object.entries(error.headers ?? {}).map(([k, v]) => `${k}: ${v}`)];
  socket.end(`HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status] ?? ""}\r\n${headers.join("\r\n")}\r\n\r\n${body}`);
}
