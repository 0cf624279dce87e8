// https:// drains: batches of lines POSTed as newline-delimited JSON, one object per line
// `{timestamp, app, process, kind, stream, line}`, through the outbound guard (checked and pinned at each
// connection), verifying the receiver's certificate against the system's CAs and the operator's (DRAIN_CA_FILE).
import https from "node:https";
import tls from "node:tls";
import type { LogLineRecord } from "../hosting/logs/store.ts";
import type { OutboundGuard } from "../platform/outbound.ts";
import type { DrainTransport } from "./drain.ts";
import { procIdOf } from "./syslog-format.ts";

const TIMEOUT_MS = 10_000;

export interface HttpsTarget {
  url: URL;
  guard: OutboundGuard;
  ca: string[];
  appName: string;
}

export class HttpsTransport implements DrainTransport {
  readonly batchLines = 500;
  /** Lines wait this long for company: one request per second or so, not one per log batch. */
  readonly lingerMs = 500;
  private readonly agent: https.Agent;

  constructor(private readonly target: HttpsTarget) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: [...tls.rootCertificates, ...target.ca] });
  }

  async deliver(lines: LogLineRecord[]): Promise<void> {
    const app = this.target.appName;
    const body = lines
      .map((l) => JSON.stringify({ timestamp: l.timestamp, app, process: procIdOf(l), kind: l.kind, stream: l.stream, line: l.line }))
      .join("\n")
      .concat("\n");
    // Node skips `lookup` for an address literal: checked here, so a narrowed OUTBOUND_ALLOWED_HOSTS applies to it too.
    await this.target.guard.resolve(this.target.url.hostname);
    return new Promise((resolve, reject) => {
      const request = https.request(
        this.target.url,
        {
          method: "POST",
          agent: this.agent,
          lookup: this.target.guard.lookup,
          headers: { "content-type": "application/x-ndjson", "user-agent": "Slipway-LogDrain/1" },
        },
        (response) => {
          clearTimeout(deadline);
          const status = response.statusCode ?? 0;
          response.resume();
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`the receiver answered ${status}`));
        },
      );
      // One deadline for the whole request (a socket timeout only measures silences).
      const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
      request.on("error", (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      request.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
