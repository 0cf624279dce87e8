// The little of the DNS wire format (RFC 1035, SRV: RFC 2782) that caddy-dns.ts needs: read a query's one
// question, write an authoritative answer with SRV, A or AAAA records. Nothing else is understood.

export const TYPE = { A: 1, AAAA: 28, SRV: 33 } as const;
export const RCODE = { NOERROR: 0, FORMERR: 1, NXDOMAIN: 3, REFUSED: 5 } as const;
const CLASS_IN = 1;
const HEADER_BYTES = 12;
/** Answers are computed per query from memory: nothing to cache downstream (Caddy keeps its own refresh). */
const TTL_SECONDS = 1;

export interface Question {
  id: number;
  /** The query's RD flag, echoed in the answer. */
  flags: number;
  /** Lowercase, without the trailing dot. */
  name: string;
  type: number;
  /** The question as sent (header excluded), copied into the answer verbatim. */
  raw: Buffer;
}

export type DnsRecord =
  | { type: typeof TYPE.SRV; priority: number; weight: number; port: number; target: string }
  | { type: typeof TYPE.A | typeof TYPE.AAAA; address: Buffer };

/** The one question of a standard query, or null when the message is not one. */
export function readQuestion(message: Buffer): Question | null {
  if (message.length < HEADER_BYTES) return null;
  const flags = message.readUInt16BE(2);
  const isQuery = (flags & 0x8000) === 0 && (flags & 0x7800) === 0;
  if (!isQuery || message.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let offset = HEADER_BYTES;
  for (;;) {
    if (offset >= message.length) return null;
    const length = message[offset];
    if (length === 0) break;
    // A question's name is never compressed (0xc0) nor longer than 63 bytes a label.
    if (length > 63 || offset + 1 + length > message.length) return null;
    labels.push(message.toString("latin1", offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  const end = offset + 1 + 4;
  if (end > message.length) return null;
  return {
    id: message.readUInt16BE(0),
    flags: flags & 0x0100,
    name: labels.join(".").toLowerCase(),
    type: message.readUInt16BE(offset + 1),
    raw: message.subarray(HEADER_BYTES, end),
  };
}

/** An authoritative answer to `question`; its records are all named as the question (a pointer to it). */
export function writeAnswer(question: Question, rcode: number, records: readonly DnsRecord[] = []): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt16BE(question.id, 0);
  // QR (a response), AA (authoritative), the query's RD; opcode 0 (a standard query); no recursion offered.
  header.writeUInt16BE(0x8000 | 0x0400 | question.flags | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, question.raw, ...records.map(writeRecord)]);
}

function writeRecord(record: DnsRecord): Buffer {
  const data = record.type === TYPE.SRV ? writeSrv(record) : record.address;
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc000 | HEADER_BYTES, 0);
  fixed.writeUInt16BE(record.type, 2);
  fixed.writeUInt16BE(CLASS_IN, 4);
  fixed.writeUInt32BE(TTL_SECONDS, 6);
  fixed.writeUInt16BE(data.length, 10);
  return Buffer.concat([fixed, data]);
}

function writeSrv(record: Extract<DnsRecord, { type: typeof TYPE.SRV }>): Buffer {
  const numbers = Buffer.alloc(6);
  numbers.writeUInt16BE(record.priority, 0);
  numbers.writeUInt16BE(record.weight, 2);
  numbers.writeUInt16BE(record.port, 4);
  return Buffer.concat([numbers, writeName(record.target)]);
}

function writeName(name: string): Buffer {
  const labels = name.split(".").filter(Boolean);
  return Buffer.concat([...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, "latin1")])), Buffer.from([0])]);
}
