// Where a long file name may wrap in a narrow column: after its separators (- _ . and spaces) and, in a run
// without any, every 16 characters. A name up to 16 characters keeps together, so "red.png" never wraps as
// "red.pn" / "g". The pieces go between <wbr>s: breaks the browser takes only when the line is full.
const KEEP_TOGETHER = 16;

export function fileNameParts(name: string): string[] {
  if (name.length <= KEEP_TOGETHER) return [name];
  return name.split(/(?<=[-_.\s])/).flatMap((piece) => Array.from({ length: Math.ceil(piece.length / KEEP_TOGETHER) }, (_, i) => piece.slice(i * KEEP_TOGETHER, (i + 1) * KEEP_TOGETHER)));
}
