// ANSI colour codes in log lines, turned into text segments with CSS classes. The text is only ever put in
// text nodes (never innerHTML), so a log line cannot add markup; escape sequences other than SGR colours
// (cursor moves, window titles, hyperlinks) are dropped.

export interface Segment {
  text: string;
  /** Space-separated classes: ansi-fg-N / ansi-bg-N (N 0–15), ansi-bold, ansi-dim, ansi-italic, ansi-underline. */
  classes: string;
}

interface Style {
  fg: number | null;
  bg: number | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
}

// CSI (ESC [ params final), OSC (ESC ] … BEL or ESC \), or any other two-character escape.
const ESCAPE = /\x1b(?:\[([0-?]*)[ -/]*([@-~])|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -~]?)/g;

const plain = (): Style => ({ fg: null, bg: null, bold: false, dim: false, italic: false, underline: false });

function classesOf(style: Style): string {
  const classes: string[] = [];
  if (style.fg !== null) classes.push(`ansi-fg-${style.fg}`);
  if (style.bg !== null) classes.push(`ansi-bg-${style.bg}`);
  if (style.bold) classes.push("ansi-bold");
  if (style.dim) classes.push("ansi-dim");
  if (style.italic) classes.push("ansi-italic");
  if (style.underline) classes.push("ansi-underline");
  return classes.join(" ");
}

/** An extended colour (38/48 ;5;n or ;2;r;g;b): the palette index when it is one of the 16, else null. */
function extended(codes: number[], at: number): { colour: number | null; used: number } {
  if (codes[at + 1] === 5) {
    const n = codes[at + 2];
    return { colour: n !== undefined && n >= 0 && n < 16 ? n : null, used: 3 };
  }
  if (codes[at + 1] === 2) return { colour: null, used: 5 };
  return { colour: null, used: 1 };
}

function apply(style: Style, params: string): Style {
  const codes = params === "" ? [0] : params.split(/[;:]/).map((p) => (p === "" ? 0 : Number(p)));
  const next = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i];
    if (code === 0) Object.assign(next, plain());
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 22) next.bold = next.dim = false;
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code >= 30 && code <= 37) next.fg = code - 30;
    else if (code >= 90 && code <= 97) next.fg = code - 90 + 8;
    else if (code === 39) next.fg = null;
    else if (code >= 40 && code <= 47) next.bg = code - 40;
    else if (code >= 100 && code <= 107) next.bg = code - 100 + 8;
    else if (code === 49) next.bg = null;
    else if (code === 38 || code === 48) {
      const { colour, used } = extended(codes, i);
      if (code === 38) next.fg = colour;
      else next.bg = colour;
      i += used - 1;
    }
  }
  return next;
}

/** Splits a line into styled segments; adjacent text of the same style stays one segment. */
export function parseAnsi(line: string): Segment[] {
  const segments: Segment[] = [];
  let style = plain();
  let last = 0;
  const push = (text: string) => {
    if (!text) return;
    const classes = classesOf(style);
    const previous = segments[segments.length - 1];
    if (previous && previous.classes === classes) previous.text += text;
    else segments.push({ text, classes });
  };
  for (const match of line.matchAll(ESCAPE)) {
    push(line.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] === "m") style = apply(style, match[1] ?? "");
  }
  push(line.slice(last));
  return segments;
}

/** The line as plain text, without escape sequences (for searching). */
export function stripAnsi(line: string): string {
  return line.replace(ESCAPE, "");
}
