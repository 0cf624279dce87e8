// A spinner on a terminal (@clack/prompts), plain lines otherwise (logs, CI, pipes).
import { color } from "./output.ts";

export interface Spinner {
  stop(message?: string): void;
  fail(message?: string): void;
  message(text: string): void;
}

export function startSpinner(text: string): Spinner {
  if (!process.stdout.isTTY) {
    process.stdout.write(`${text}…\n`);
    return {
      stop: (message) => message && process.stdout.write(`${message}\n`),
      fail: (message) => message && process.stderr.write(`${message}\n`),
      message: () => {},
    };
  }
  // Loaded only on a terminal; clack draws with its own colours, which it drops for NO_COLOR.
  let spinner: { start(m?: string): void; stop(m?: string): void; error(m?: string): void; message(m?: string): void } | null = null;
  let stopped = false;
  const ready = import("@clack/prompts").then(({ spinner: create }) => {
    if (stopped) return;
    spinner = create({ withGuide: false });
    spinner.start(text);
  });
  void ready;
  return {
    stop(message) {
      stopped = true;
      if (spinner) spinner.stop(message ?? text);
      else if (message) process.stdout.write(`${color.green("✔")} ${message}\n`);
    },
    fail(message) {
      stopped = true;
      if (spinner) spinner.error(message ?? text);
      else if (message) process.stderr.write(`${message}\n`);
    },
    message(next) {
      spinner?.message(next);
    },
  };
}
