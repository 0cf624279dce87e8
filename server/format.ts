// Numbers as people read them in messages.

/** "1 file", "3 files": the noun's plural is the noun with an s. */
export function formatCount(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}

/** "1 byte", "512 bytes", "3.5 KiB", "50 MiB". */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? formatCount(value, "byte") : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
