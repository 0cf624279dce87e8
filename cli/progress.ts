// The upload progress bar (cli-progress): bytes sent of the total, rate and ETA. Off a terminal it prints
// nothing until the end, then one summary line.
import { formatBytes } from "./output.ts";

export interface Progress {
  update(sent: number): void;
  stop(): void;
}

export async function startProgress(total: number, label: string): Promise<Progress> {
  const started = Date.now();
  if (!process.stderr.isTTY) {
    return {
      update: () => {},
      stop: () => process.stderr.write(`${label} ${formatBytes(total)} in ${((Date.now() - started) / 1000).toFixed(1)}s\n`),
    };
  }
  const { SingleBar } = await import("cli-progress");
  const bar = new SingleBar({
    format: `${label} [{bar}] {percentage}% | {sentText}/{totalText} | {rate}/s | ETA {eta_formatted}`,
    barCompleteChar: "█",
    barIncompleteChar: "░",
    hideCursor: true,
    stream: process.stderr,
    fps: 10,
    etaBuffer: 20,
  });
  const tokens = (sent: number) => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    return { sentText: formatBytes(sent), totalText: formatBytes(total), rate: formatBytes(Math.round(sent / seconds)) };
  };
  bar.start(total, 0, tokens(0));
  return {
    update: (sent) => bar.update(sent, tokens(sent)),
    stop: () => bar.stop(),
  };
}
