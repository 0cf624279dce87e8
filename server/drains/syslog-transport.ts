// syslog:// and syslog+tls://: one TCP (or TLS) connection per drain, opened when lines wait and opened again after
// it breaks (the drain's back-off spaces the tries). The address is the outbound guard's (checked and pinned at
// each connection: DNS rebinding does not reach a private address); TLS verifies the receiver's certificate
// against the system's CAs and the operator's (DRAIN_CA_FILE).
import net from "node:net";
import tls from "node:tls";
import type { LogLineRecord } from "../hosting/logs/store.ts";
import type { OutboundGuard } from "../platform/outbound.ts";
import type { DrainTransport } from "./drain.ts";
import { syslogFrames } from "./syslog-format.ts";

const CONNECT_TIMEOUT_MS = 10_000;
/** A receiver that stops reading for this long is treated as gone (the connection is dropped). */
const WRITE_TIMEOUT_MS = 30_000;

export interface SyslogTarget {
  url: URL;
  guard: OutboundGuard;
  /** The PEM certificates TLS trusts besides the system's (DRAIN_CA_FILE). */
  ca: string[];
  /** HOSTNAME in each message: the platform's. */
  hostname: string;
  appName: string;
}

export class SyslogTransport implements DrainTransport {
  readonly batchLines = 1000;
  readonly lingerMs = 0;
  private socket: net.Socket | null = null;
  private connecting: net.Socket | null = null;
  private closed = false;
  private readonly secure: boolean;

  constructor(private readonly target: SyslogTarget) {
    this.secure = target.url.protocol === "syslog+tls:";
  }

  async deliver(lines: LogLineRecord[]): Promise<void> {
    const socket = this.socket ?? (await this.connect());
    const frames = syslogFrames(this.target.hostname, this.target.appName, lines);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => socket.destroy(new Error(`the receiver read nothing for ${WRITE_TIMEOUT_MS / 1000} s`)), WRITE_TIMEOUT_MS);
      socket.write(frames, (error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      });
    });
  }

  close(): void {
    this.closed = true;
    this.connecting?.destroy();
    this.socket?.destroy();
    this.socket = null;
  }

  private async connect(): Promise<net.Socket> {
    const { url, guard, ca } = this.target;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const port = Number(url.port || (this.secure ? 6514 : 514));
    const { address } = await guard.resolve(host);
    if (this.closed) throw new Error("the drain was removed");
    const socket = this.secure
      ? tls.connect({ host: address, port, servername: net.isIP(host) ? undefined : host, ca: [...tls.rootCertificates, ...ca] })
      : net.connect({ host: address, port });
    // A close() while it connects destroys it (else it would open after the drain went, and stay open).
    this.connecting = socket;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => socket.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
      const failed = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      socket.once(this.secure ? "secureConnect" : "connect", () => {
        clearTimeout(timer);
        socket.off("error", failed);
        resolve();
      });
      socket.once("error", failed);
      socket.once("close", () => failed(new Error("the connection closed")));
    }).finally(() => {
      if (this.connecting === socket) this.connecting = null;
    });
    if (this.closed) {
      socket.destroy();
      throw new Error("the drain was removed");
    }
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    socket.resume(); // a receiver may answer; nothing it says matters
    const forget = () => {
      if (this.socket === socket) this.socket = null;
    };
    socket.on("error", forget);
    socket.on("close", forget);
    this.socket = socket;
    return socket;
  }
}
