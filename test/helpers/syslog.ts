// A syslog receiver for tests: TCP or TLS, octet-counted framing (RFC 6587 §3.4.1) and RFC 5424 messages parsed
// strictly; anything malformed is kept in `errors` (a test asserts there are none) and ends the connection.
import net from "node:net";
import tls from "node:tls";

export interface SyslogMessage {
  pri: number;
  facility: number;
  severity: number;
  timestamp: string;
  hostname: string;
  appName: string;
  procId: string;
  msgId: string;
  structuredData: string;
  msg: string;
}

const HEADER = /^<(\d{1,3})>1 (\S+) (\S{1,255}) (\S{1,48}) (\S{1,128}) (\S{1,32}) (-|(?:\[[^\]]*\])+)(?: ([\s\S]*))?$/;
/** RFC 5424 §6.2.3 FULL-DATE "T" FULL-TIME, TIME-SECFRAC at most six digits, or the nil value. */
const TIMESTAMP = /^(-|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2}))$/;

/** One RFC 5424 message; throws saying what is wrong. */
export function parseRfc5424(text: string): SyslogMessage {
  const match = HEADER.exec(text);
  if (!match) throw new Error(`not an RFC 5424 message: ${JSON.stringify(text.slice(0, 120))}`);
  const [, pri, timestamp, hostname, appName, procId, msgId, structuredData, msg = ""] = match;
  if (Number(pri) > 191) throw new Error(`PRI ${pri} is out of range`);
  if (!TIMESTAMP.test(timestamp) || (timestamp !== "-" && Number.isNaN(Date.parse(timestamp)))) throw new Error(`bad TIMESTAMP ${timestamp}`);
  if (/[^\x21-\x7e]/.test(hostname + appName + procId + msgId)) throw new Error("a header field holds a non-printable character");
  return { pri: Number(pri), facility: Number(pri) >> 3, severity: Number(pri) & 7, timestamp, hostname, appName, procId, msgId, structuredData, msg };
}

/** Splits octet-counted frames ("LEN SP MSG") out of a byte stream, however it is cut. */
export class OctetCountingParser {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(private readonly onMessage: (message: Buffer) => void) {}

  /** Throws on a frame that is not "NONZERO-DIGIT *DIGIT SP". */
  push(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const space = this.buffer.indexOf(0x20);
      if (space === -1) {
        if (this.buffer.length > 10 || /[^0-9]/.test(this.buffer.toString("latin1"))) throw new Error(`bad frame length ${JSON.stringify(this.buffer.toString("latin1").slice(0, 20))}`);
        return;
      }
      const digits = this.buffer.subarray(0, space).toString("latin1");
      if (!/^[1-9]\d{0,9}$/.test(digits)) throw new Error(`bad frame length ${JSON.stringify(digits.slice(0, 20))}`);
      const length = Number(digits);
      if (this.buffer.length < space + 1 + length) return;
      this.onMessage(this.buffer.subarray(space + 1, space + 1 + length));
      this.buffer = this.buffer.subarray(space + 1 + length);
    }
  }
}

export interface SyslogReceiver {
  port: number;
  messages: SyslogMessage[];
  errors: string[];
  connections: number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1; with `tls`, serves that key and certificate. */
export async function startSyslogReceiver(options: { tls?: { key: string; cert: string }; port?: number } = {}): Promise<SyslogReceiver> {
  const messages: SyslogMessage[] = [];
  const errors: string[] = [];
  const sockets = new Set<net.Socket>();
  const receiver = { port: 0, messages, errors, connections: 0, close: async () => {} };
  const handle = (socket: net.Socket) => {
    receiver.connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    const parser = new OctetCountingParser((message) => messages.push(parseRfc5424(message.toString("utf8"))));
    socket.on("data", (chunk: Buffer) => {
      try {
        parser.push(chunk);
      } catch (error) {
        errors.push((error as Error).message);
        socket.destroy();
      }
    });
  };
  const server = options.tls ? tls.createServer({ key: options.tls.key, cert: options.tls.cert }, handle) : net.createServer(handle);
  if (options.tls) server.on("tlsClientError", (error) => errors.push(`TLS: ${error.message}`));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  receiver.port = (server.address() as net.AddressInfo).port;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return receiver;
}
