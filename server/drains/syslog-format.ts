// One log line as an RFC 5424 syslog message, framed by octet counting (RFC 6587 §3.4.1: "LEN SP MSG"), so a line
// may hold any bytes and the receiver never has to guess where a message ends.
import type { LogLineRecord } from "../hosting/logs/store.ts";

/** Facility "user" (1): the app's own output, not the platform's daemons. */
const FACILITY = 1;
/** stderr is an error (3), the platform's own lines a notice (5), the rest informational (6). */
const SEVERITY = { stdout: 6, stderr: 3, system: 5 } as const;

/** PRINTUSASCII without spaces, at most MAX characters; "-" (the nil value) when nothing is left. */
function header(value: string, max: number): string {
  const printable = value.replace(/[^\x21-\x7e]/g, "_").slice(0, max);
  return printable || "-";
}

/** PROCID: the process that wrote it (web.1, worker.2, run.<id>), "build" for a build, else "slipway". */
export function procIdOf(line: LogLineRecord): string {
  return line.process ?? (line.kind === "build" ? "build" : "slipway");
}

/** Log timestamps carry nine fractional digits; RFC 5424 allows six: the millisecond is kept. */
export function syslogTimestamp(timestamp: string): string {
  return /^.*\.\d{3}/.exec(timestamp)?.[0].concat("Z") ?? timestamp;
}

/** `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID - MSG`, MSGID the log's kind (build, runtime, run). */
export function syslogMessage(hostname: string, appName: string, line: LogLineRecord): string {
  return message(`${header(hostname, 255)} ${header(appName, 48)}`, line);
}

function message(hostAndApp: string, line: LogLineRecord): string {
  const pri = FACILITY * 8 + SEVERITY[line.stream];
  return `<${pri}>1 ${syslogTimestamp(line.timestamp)} ${hostAndApp} ${header(procIdOf(line), 128)} ${line.kind} - ${line.line}`;
}

/** Octet-counted frames of LINES, one buffer to write at once (built as one string: a buffer per line cost more). */
export function syslogFrames(hostname: string, appName: string, lines: LogLineRecord[]): Buffer {
  const hostAndApp = `${header(hostname, 255)} ${header(appName, 48)}`;
  let frames = "";
  for (const line of lines) {
    const text = message(hostAndApp, line);
    frames += `${Buffer.byteLength(text)} ${text}`;
  }
  return Buffer.from(frames);
}
