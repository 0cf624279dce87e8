// Field rules for one-off runs: the command (one shell line, run inside the app's sandbox) and its timeout.
import { TERMINAL_LIMITS } from "../hosting/runs/terminal.ts";
import type { Check } from "./validation.ts";

const terminalDimension = (v: unknown) =>
  v == null || (typeof v === "number" && Number.isInteger(v) && v >= TERMINAL_LIMITS.min && v <= TERMINAL_LIMITS.max)
    ? null
    : `Use a whole number from ${TERMINAL_LIMITS.min} to ${TERMINAL_LIMITS.max} (the terminal's size in characters).`;

export const RUN_TIMEOUT_SECONDS = { default: 3600, max: 86_400 };
export const MAX_COMMAND_LENGTH = 8192;

export const runRules = {
  command: (v) =>
    typeof v !== "string" || !v.trim()
      ? "Give the command to run, like `python manage.py migrate`."
      : v.includes("\0")
        ? "The command must not contain NUL characters."
        : v.length > MAX_COMMAND_LENGTH
          ? `Use at most ${MAX_COMMAND_LENGTH} characters.`
          : null,
  timeoutSeconds: (v) =>
    v == null || (typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= RUN_TIMEOUT_SECONDS.max)
      ? null
      : `Use a whole number of seconds from 1 to ${RUN_TIMEOUT_SECONDS.max} (24 hours).`,
  interactive: (v) => (v == null || typeof v === "boolean" ? null : "Use true to attach a terminal, or leave it out."),
  cols: terminalDimension,
  rows: terminalDimension,
} satisfies Record<string, Check>;
