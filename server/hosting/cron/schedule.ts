// Five-field crontab schedules (minute hour day-of-month month day-of-week), always in UTC, as Dokku's app.json
// and Vixie cron read them: numbers, `*`, lists `a,b`, ranges `a-b`, steps `*/n`, `a-b/n` and `a/n` (a to the
// field's end), month and weekday names (jan–dec, sun–sat; 7 is Sunday too), and @hourly, @daily, @weekly,
// @monthly, @yearly. When both day fields are restricted, a day matching either runs (Vixie cron's rule).
// Hand-written (about 100 lines) rather than a dependency: the platform needs only parse and next(), in UTC.

interface Field {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly Field[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] },
  { name: "day of week", min: 0, max: 7, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] },
];

const MACROS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** The longest gap between two runs of a schedule that runs at all: Feb 29 of a weekday comes back within 28 years. */
const SEARCH_YEARS = 28;
const MINUTE_MS = 60_000;

export class CronSyntaxError extends Error {}

export class CronSchedule {
  private constructor(
    readonly source: string,
    private readonly minutes: ReadonlySet<number>,
    private readonly hours: ReadonlySet<number>,
    private readonly days: ReadonlySet<number>,
    private readonly months: ReadonlySet<number>,
    private readonly weekdays: ReadonlySet<number>,
    /** Both day fields restricted: either matching is enough. */
    private readonly eitherDay: boolean,
    private readonly anyDay: boolean,
  ) {}

  /** Throws a CronSyntaxError saying what is wrong, in words a user can act on. */
  static parse(text: string): CronSchedule {
    const source = text.trim();
    const expanded = MACROS[source.toLowerCase()] ?? source;
    if (expanded.startsWith("@")) throw new CronSyntaxError(`"${source}" is not one of ${Object.keys(MACROS).join(", ")}.`);
    const parts = expanded.split(/\s+/).filter(Boolean);
    if (parts.length !== 5) throw new CronSyntaxError(`Give five fields (minute hour day-of-month month day-of-week), like "*/5 * * * *"; this has ${parts.length}.`);
    const [minutes, hours, days, months, weekdays] = parts.map((part, i) => parseField(part, FIELDS[i]!));
    if (weekdays!.has(7)) weekdays!.add(0);
    const dayStar = parts[2] === "*";
    const weekdayStar = parts[4] === "*";
    const schedule = new CronSchedule(source, minutes!, hours!, days!, months!, weekdays!, !dayStar && !weekdayStar, dayStar && weekdayStar);
    if (!schedule.nextWithin(new Date(Date.UTC(2000, 0, 1)), SEARCH_YEARS)) throw new CronSyntaxError(`"${source}" names a day that never comes (like February 30).`);
    return schedule;
  }

  /** The first minute strictly after `after` that the schedule names, in UTC. */
  next(after: Date): Date {
    const found = this.nextWithin(after, SEARCH_YEARS);
    if (!found) throw new Error(`"${this.source}" has no run after ${after.toISOString()}`);
    return found;
  }

  /** Whether the schedule names this minute (its seconds ignored). */
  matches(at: Date): boolean {
    return this.minutes.has(at.getUTCMinutes()) && this.hours.has(at.getUTCHours()) && this.months.has(at.getUTCMonth() + 1) && this.dayMatches(at);
  }

  private dayMatches(at: Date): boolean {
    if (this.anyDay) return true;
    const day = this.days.has(at.getUTCDate());
    const weekday = this.weekdays.has(at.getUTCDay());
    return this.eitherDay ? day || weekday : day && weekday;
  }

  // Jumps a whole month, day or hour at a time when that part does not match: at most a few thousand steps.
  private nextWithin(after: Date, years: number): Date | null {
    let t = new Date(Math.floor(after.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS);
    const limit = Date.UTC(t.getUTCFullYear() + years + 1, 0, 1);
    while (t.getTime() < limit) {
      const [y, mo, d, h] = [t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate(), t.getUTCHours()];
      if (!this.months.has(mo + 1)) t = new Date(Date.UTC(y, mo + 1, 1));
      else if (!this.dayMatches(t)) t = new Date(Date.UTC(y, mo, d + 1));
      else if (!this.hours.has(h)) t = new Date(Date.UTC(y, mo, d, h + 1));
      else if (!this.minutes.has(t.getUTCMinutes())) t = new Date(t.getTime() + MINUTE_MS);
      else return t;
    }
    return null;
  }
}

/** The reason a schedule is invalid, or null when it parses. */
export function scheduleProblem(text: string): string | null {
  try {
    CronSchedule.parse(text);
    return null;
  } catch (error) {
    if (error instanceof CronSyntaxError) return error.message;
    throw error;
  }
}

function parseField(text: string, field: Field): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(",")) {
    const match = /^(\*|[a-z0-9]+(?:-[a-z0-9]+)?)(?:\/(\d+))?$/i.exec(item);
    if (!match) throw new CronSyntaxError(`The ${field.name} field "${text}" is not a number, a range, a list or a step.`);
    const [, base, stepText] = match;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) throw new CronSyntaxError(`The ${field.name} field "${text}" has a step of 0.`);
    let [from, to] = [field.min, field.max];
    if (base !== "*") {
      const [a, b] = base!.split("-");
      from = valueOf(a!, field, text);
      to = b !== undefined ? valueOf(b, field, text) : stepText !== undefined ? field.max : from;
    }
    if (from > to) throw new CronSyntaxError(`The ${field.name} field "${text}" has a range that runs backwards.`);
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

function valueOf(text: string, field: Field, whole: string): number {
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  const value = named >= 0 ? named + (field.name === "month" ? 1 : 0) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (Number.isNaN(value)) throw new CronSyntaxError(`The ${field.name} field "${whole}" holds "${text}", which is neither a number nor a ${field.name} name.`);
  if (value < field.min || value > field.max) throw new CronSyntaxError(`The ${field.name} field "${whole}" holds ${value}: use ${field.min}–${field.max}.`);
  return value;
}
