// One byte range from a Range header (RFC 9110 14.2): `bytes=a-b`, `bytes=a-` and the suffix `bytes=-n`.
// Several ranges, another unit or a malformed header are ignored (the whole content is served, as the RFC
// allows); a range wholly past the end, or an empty suffix, is unsatisfiable (416).

export interface ByteRange {
  start: number;
  end: number;
}

const ONE = /^bytes=(\d*)-(\d*)$/;

export function parseRange(header: string | undefined, size: number): ByteRange | "unsatisfiable" | null {
  if (!header) return null;
  const match = ONE.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? Infinity : Number(match[2]);
  if (end < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end: Math.min(end, size - 1) };
}
