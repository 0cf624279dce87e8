// LogLine.timestamp: an ISO-8601 UTC time with nine fractional digits: the millisecond, then a six-digit
// sequence within it. Strictly increasing per app, so `after=<timestamp>` pages through every line exactly
// once even when thousands arrive in the same millisecond, and text order is time order.

const PER_MILLISECOND = 1_000_000;

export class LogClock {
  private last = new Map<string, { ms: number; seq: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Continues after a timestamp already stored (a restarted platform), so order survives restarts. */
  resume(appId: string, timestamp: string | null): void {
    if (timestamp && !this.last.has(appId)) this.last.set(appId, parseLogTimestamp(timestamp));
  }

  next(appId: string): string {
    const prev = this.last.get(appId);
    let ms = this.now();
    let seq = 0;
    if (prev && ms <= prev.ms) {
      ms = prev.ms;
      seq = prev.seq + 1;
      if (seq >= PER_MILLISECOND) {
        ms += 1;
        seq = 0;
      }
    }
    this.last.set(appId, { ms, seq });
    return formatLogTimestamp(ms, seq);
  }

  forget(appId: string): void {
    this.last.delete(appId);
  }
}

export function formatLogTimestamp(ms: number, seq: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}${String(seq).padStart(6, "0")}Z`;
}

export function parseLogTimestamp(timestamp: string): { ms: number; seq: number } {
  const match = /^(.*\.\d{3})(\d{6})Z$/.exec(timestamp);
  if (!match) return { ms: Date.parse(timestamp), seq: 0 };
  return { ms: Date.parse(`${match[1]}Z`), seq: Number(match[2]) };
}

/** Whether a client's `after` value is a timestamp we could have issued (ISO-8601, any precision). */
export function isLogTimestamp(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/.test(value) && !Number.isNaN(Date.parse(value.replace(/(\.\d{3})\d+Z$/, "$1Z")));
}
