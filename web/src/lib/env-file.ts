// Environment variables pasted as the lines of a .env file: KEY=VALUE per line. Blank lines and # comments
// are skipped, a leading `export ` is dropped, and a value may be quoted: "double" (with \n, \" and \\
// escapes) or 'single' (taken as written). An unquoted value ends at an inline " #" comment.

export interface ParsedEnv {
  vars: Record<string, string>;
  /** One message per line that is not KEY=VALUE, naming the line. */
  errors: string[];
}

const LINE = /^(?:export\s+)?([^=\s]+)\s*=\s*(.*)$/;

/** The index of the first `"` after the opening one that is not escaped, or -1. */
function closingDoubleQuote(raw: string): number {
  for (let i = 1; i < raw.length; i++) {
    if (raw[i] === "\\") i++;
    else if (raw[i] === '"') return i;
  }
  return -1;
}

function unquote(raw: string): string | null {
  const quote = raw[0];
  if (quote !== '"' && quote !== "'") return raw.replace(/\s+#.*$/, "").trim();
  const close = quote === "'" ? raw.indexOf("'", 1) : closingDoubleQuote(raw);
  if (close < 0) return null;
  const rest = raw.slice(close + 1).trim();
  if (rest && !rest.startsWith("#")) return null;
  const inner = raw.slice(1, close);
  if (quote === "'") return inner;
  return inner.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c === "r" ? "\r" : c === "t" ? "\t" : c));
}

export function parseEnvText(text: string): ParsedEnv {
  const vars: Record<string, string> = {};
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const match = LINE.exec(line);
    const value = match ? unquote(match[2]) : null;
    if (!match) errors.push(`Line ${index + 1}: write it as KEY=VALUE.`);
    else if (value === null) errors.push(`Line ${index + 1}: the quoted value of ${match[1]} must end with its closing quote.`);
    else vars[match[1]] = value;
  });
  return { vars, errors };
}
