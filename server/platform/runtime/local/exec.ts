// Runs the host tools the driver needs (ip, nft, chown) with argv arrays, never a shell.
import { execFile } from "node:child_process";

export class CommandError extends Error {
  constructor(
    readonly argv: string[],
    readonly code: number | string | null,
    readonly stderr: string,
  ) {
    super(`${argv.join(" ")} failed (${code}): ${stderr.trim() || "no output"}`);
    this.name = "CommandError";
  }
}

export function exec(argv: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(argv[0], argv.slice(1), { env: {}, timeout: options.timeoutMs ?? 10_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new CommandError(argv, (error as NodeJS.ErrnoException).code ?? null, String(stderr || error.message)));
      else resolve(String(stdout));
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Like exec, but a failure whose message matches `ignore` (e.g. "already exists") counts as success. */
export async function execIgnoring(argv: string[], ignore: RegExp): Promise<void> {
  try {
    await exec(argv);
  } catch (error) {
    if (!(error instanceof CommandError) || !ignore.test(error.stderr)) throw error;
  }
}
