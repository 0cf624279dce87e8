// A tiny authoritative DNS server on UDP 127.0.0.1 for tests: answers TXT questions from a map (name → texts)
// and NXDOMAIN for everything else. Enough for node:dns's Resolver pointed at it (RFC 1035 §4).
import dgram from "node:dgram";

export interface TestDns {
  /** `127.0.0.1:<port>`, for Resolver.setServers. */
  server: string;
  txt: Map<string, string[]>;
  close(): Promise<void>;
}

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  while (message[offset] !== 0) {
    const length = message[offset];
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString("ascii"));
    offset += 1 + length;
  }
  return { name: labels.join(".").toLowerCase(), end: offset + 1 };
}

function answer(query: Buffer, txt: Map<string, string[]>): Buffer {
  const { name, end } = readName(query, 12);
  const type = query.readUInt16BE(end);
  const question = query.subarray(12, end + 4);
  const texts = type === 16 ? txt.get(name) : undefined;
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  header.writeUInt16BE(texts ? 0x8400 : 0x8403, 2); // response, authoritative; NXDOMAIN when unknown
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(texts?.length ?? 0, 6);
  const records = (texts ?? []).map((text) => {
    const data = Buffer.concat([Buffer.from([Buffer.byteLength(text)]), Buffer.from(text)]);
    const fixed = Buffer.alloc(12);
    fixed.writeUInt16BE(0xc00c, 0); // the question's name
    fixed.writeUInt16BE(16, 2); // TXT
    fixed.writeUInt16BE(1, 4); // IN
    fixed.writeUInt32BE(60, 6);
    fixed.writeUInt16BE(data.length, 10);
    return Buffer.concat([fixed, data]);
  });
  return Buffer.concat([header, question, ...records]);
}

export async function startDns(): Promise<TestDns> {
  const socket = dgram.createSocket("udp4");
  const txt = new Map<string, string[]>();
  socket.on("message", (query, peer) => {
    try {
      socket.send(answer(query, txt), peer.port, peer.address);
    } catch {
      // a malformed query gets no answer
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return { server: `127.0.0.1:${socket.address().port}`, txt, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}
