// `slipway run` on a terminal: the run's pty inside the sandbox is attached to this one over a WebSocket. Keys go
// as they are typed (raw mode: Ctrl-C reaches the command, not this process), the window size follows this
// terminal's, and the run's end arrives as the last message.
import { constants } from "node:os";
import type { Api } from "./api.ts";
import { CliError } from "./output.ts";

export interface TerminalOutcome {
  status: string;
  exitCode: number | null;
  error: string | null;
}

export async function attachTerminal(api: Api, attachUrl: string): Promise<TerminalOutcome> {
  const { default: WebSocket } = await import("ws");
  const url = new URL(attachUrl, api.server);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${await api.accessToken()}` } });
  const stdin = process.stdin;
  const size = () => ({ type: "resize", cols: process.stdout.columns, rows: process.stdout.rows });
  const onKeys = (chunk: Buffer) => ws.send(chunk, { binary: true });
  const onResize = () => ws.send(JSON.stringify(size()));
  return new Promise<TerminalOutcome>((resolve, reject) => {
    let outcome: TerminalOutcome | null = null;
    ws.on("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk)).on("end", () => reject(new CliError(messageOf(body) ?? `The server refused the terminal (HTTP ${response.statusCode}).`)));
    });
    ws.on("error", (error) => reject(new CliError(`The terminal's connection failed: ${error.message}`)));
    ws.on("open", () => {
      stdin.setRawMode(true);
      stdin.resume();
      stdin.on("data", onKeys);
      process.stdout.on("resize", onResize);
    });
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      if (isBinary) process.stdout.write(data);
      else outcome = JSON.parse(data.toString()) as TerminalOutcome;
    });
    ws.on("close", (code, reason) => {
      stdin.off("data", onKeys);
      process.stdout.off("resize", onResize);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      if (outcome) resolve(outcome);
      else reject(new CliError(`The terminal was closed before the run ended${reason.length ? `: ${reason}` : ` (${code})`}.`));
    });
  });
}

function messageOf(body: string): string | undefined {
  try {
    return JSON.parse(body).error?.message;
  } catch {
    return undefined;
  }
}

/** A shell's exit status for an outcome: its code, 128 + the signal that ended it, or 1. */
export function exitStatusOf(outcome: TerminalOutcome): number {
  if (outcome.exitCode !== null) return outcome.exitCode;
  const signal = /signal (SIG[A-Z0-9]+)/.exec(outcome.error ?? "")?.[1];
  const number = signal ? constants.signals[signal as NodeJS.Signals] : undefined;
  return number ? 128 + number : 1;
}
