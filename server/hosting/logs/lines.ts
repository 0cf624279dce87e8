// Turns a process's output chunks into lines: split on \n (a trailing \r dropped), a line longer than
// MAX_LINE_BYTES cut there with a marker (never dropped whole), a partial last line kept until more arrives.

export const MAX_LINE_BYTES = 16 * 1024;
const NEWLINE = 0x0a;

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of the current line beyond the cut, counted for the marker. */
  private cutBytes = 0;

  constructor(private readonly emit: (line: string) => void) {}

  write(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.append(chunk.subarray(start, end));
      this.finishLine();
      start = end + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
  }

  /** Emits what is left of an unterminated last line (the process exited). */
  end(): void {
    if (this.pendingBytes > 0 || this.cutBytes > 0) this.finishLine();
  }

  private append(part: Buffer): void {
    const room = MAX_LINE_BYTES - this.pendingBytes;
    if (part.length <= room) {
      if (part.length) this.pending.push(part);
      this.pendingBytes += part.length;
      return;
    }
    if (room > 0) this.pending.push(part.subarray(0, room));
    this.pendingBytes += Math.max(room, 0);
    this.cutBytes += part.length - Math.max(room, 0);
  }

  private finishLine(): void {
    let text = Buffer.concat(this.pending, this.pendingBytes).toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (this.cutBytes > 0) text += ` … [line cut: ${this.cutBytes} more bytes]`;
    this.pending = [];
    this.pendingBytes = 0;
    this.cutBytes = 0;
    this.emit(text);
  }
}
