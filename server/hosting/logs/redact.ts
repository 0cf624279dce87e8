// Hides the values of an app's env vars in its logs (build and runtime), as the user would expect of
// secrets such as API keys. Values shorter than MIN_SECRET_LENGTH are left alone: redacting "1" or "true"
// everywhere would make logs unreadable while hiding nothing secret.

export const MIN_SECRET_LENGTH = 6;
export const REDACTED = "[redacted]";

export type Redact = (line: string) => string;

export function redactorFor(values: Iterable<string>): Redact {
  const secrets = [...new Set(values)].filter((v) => v.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return (line) => line;
  return (line) => {
    let out = line;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
}
