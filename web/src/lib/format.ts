// Numbers and dates as people read them.
const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"] as const;

/** 0 B, 512 B, 1.5 KiB, 100 MiB: binary units, at most one decimal. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || Number.isInteger(value) ? 0 : 1;
  return `${value.toLocaleString("en", { maximumFractionDigits: digits })} ${UNITS[unit]}`;
}

export function formatCount(count: number): string {
  return count.toLocaleString("en");
}

export function formatDate(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "long", day: "numeric" });
}
