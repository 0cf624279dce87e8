// The app.json "cron" list (Dokku's format): [{command, schedule, timeoutSeconds?}]. Checked at build time, each
// problem naming its entry ("cron[1].schedule"); the checked list is kept with the release (Deployment.cron).
import { createHash } from "node:crypto";
import { MAX_COMMAND_LENGTH, RUN_TIMEOUT_SECONDS } from "../../services/run-rules.ts";
import { scheduleProblem } from "./schedule.ts";

export interface CronEntry {
  command: string;
  schedule: string;
  /** Past it the run is killed (TIMED_OUT); RUN_TIMEOUT_SECONDS.default when app.json gives none. */
  timeoutSeconds: number;
}

export interface CronProblem {
  field: string;
  message: string;
}

/** Stable per app, command and schedule: a redeploy or a rollback that keeps a job keeps its id and history. */
export function cronJobId(appId: string, entry: Pick<CronEntry, "command" | "schedule">): string {
  return createHash("sha256").update(`${appId}\0${entry.schedule}\0${entry.command}`).digest("hex").slice(0, 12);
}

/** Jobs one app may have: the list is answered whole (App.cronJobs), never paged. */
export const MAX_CRON_JOBS = 50;

export function cronProblems(value: unknown): CronProblem[] {
  if (!Array.isArray(value)) return [{ field: "cron", message: 'Give a list of jobs, like [{"command": "python tasks.py", "schedule": "*/5 * * * *"}].' }];
  if (value.length > MAX_CRON_JOBS) return [{ field: "cron", message: `Give at most ${MAX_CRON_JOBS} jobs (there are ${value.length}).` }];
  const problems: CronProblem[] = [];
  const seen = new Map<string, number>();
  value.forEach((entry: unknown, i) => {
    const at = `cron[${i}]`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return problems.push({ field: at, message: "Give an object with a command and a schedule." });
    const { command, schedule, timeoutSeconds } = entry as Record<string, unknown>;
    const commandProblem =
      typeof command !== "string" || !command.trim()
        ? "Give the command to run, like `python tasks.py`."
        : command.includes("\0")
          ? "The command must not contain NUL characters."
          : command.length > MAX_COMMAND_LENGTH
            ? `Use at most ${MAX_COMMAND_LENGTH} characters.`
            : null;
    if (commandProblem) problems.push({ field: `${at}.command`, message: commandProblem });
    const scheduleIssue = typeof schedule !== "string" ? 'Give a five-field crontab schedule in UTC, like "*/5 * * * *".' : schedule.includes("\0") ? "The schedule must not contain NUL characters." : scheduleProblem(schedule);
    if (scheduleIssue) problems.push({ field: `${at}.schedule`, message: scheduleIssue });
    if (timeoutSeconds !== undefined && !(typeof timeoutSeconds === "number" && Number.isInteger(timeoutSeconds) && timeoutSeconds >= 1 && timeoutSeconds <= RUN_TIMEOUT_SECONDS.max)) {
      problems.push({ field: `${at}.timeoutSeconds`, message: `Use a whole number of seconds from 1 to ${RUN_TIMEOUT_SECONDS.max} (24 hours).` });
    }
    if (commandProblem || scheduleIssue) return;
    const key = `${(schedule as string).trim()}\0${command}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) problems.push({ field: at, message: `The same command and schedule as cron[${earlier}]: give each job once.` });
    else seen.set(key, i);
  });
  return problems;
}

/** The entries of a list cronProblems accepted, defaults filled in. */
export function toCronEntries(value: unknown[]): CronEntry[] {
  return value.map((entry) => {
    const { command, schedule, timeoutSeconds } = entry as { command: string; schedule: string; timeoutSeconds?: number };
    return { command, schedule: schedule.trim(), timeoutSeconds: timeoutSeconds ?? RUN_TIMEOUT_SECONDS.default };
  });
}
