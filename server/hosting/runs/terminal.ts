// An interactive run's terminal as the platform sees it: what the client types, the window's size as the client
// reports it, and its hang-up. The driver makes it a real pty (RunTerminal); a client's sizes are never trusted as is.
import { PassThrough } from "node:stream";
import type { RunTerminal, TerminalSize } from "../../platform/runtime/types.ts";

export type { TerminalSize };

export const TERMINAL_LIMITS = { min: 1, max: 1000 };

export class TerminalChannel implements RunTerminal {
  readonly keys = new PassThrough();
  private size: TerminalSize | null = null;
  private readonly listeners = new Set<(size: TerminalSize) => void>();

  /** The size the run was started with, unless the client reported one already. */
  startAt(size: TerminalSize): void {
    this.size ??= size;
  }

  type(keys: Buffer): void {
    if (!this.keys.writableEnded) this.keys.write(keys);
  }

  resize(size: TerminalSize): void {
    this.size = size;
    for (const listener of this.listeners) listener(size);
  }

  /** The client went away: the command is hung up. */
  hangUp(): void {
    this.keys.end();
  }

  watchSize(listener: (size: TerminalSize) => void): void {
    this.listeners.add(listener);
    if (this.size) listener(this.size);
  }
}

/** A size within bounds, or null. */
export function terminalSize(value: { cols?: unknown; rows?: unknown }): TerminalSize | null {
  const ok = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= TERMINAL_LIMITS.min && (n as number) <= TERMINAL_LIMITS.max;
  return ok(value.cols) && ok(value.rows) ? { cols: value.cols, rows: value.rows } : null;
}
