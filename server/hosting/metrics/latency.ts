// Latency histograms with buckets about 8% wide on a log scale: recording is one array increment, a minute's
// histogram stores as a few dozen numbers, and histograms of several minutes or instances merge exactly (percentiles
// of per-instance percentiles would not).
const BUCKETS = 160;
const PER_E = 1 / Math.log(1.08);

/** Counts by bucket; bucket i holds latencies up to upperBound(i) ms. */
export type Histogram = Uint32Array;

export const newHistogram = (): Histogram => new Uint32Array(BUCKETS);

export function bucketOf(ms: number): number {
  return ms <= 0 ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log1p(ms) * PER_E));
}

const upperBound = (bucket: number) => Math.expm1(bucket / PER_E);

/** The latency (ms) below which `fraction` of the recorded ones fall, to within a bucket; null when none. */
export function percentile(histogram: Histogram, fraction: number): number | null {
  let total = 0;
  for (const count of histogram) total += count;
  if (total === 0) return null;
  const rank = Math.ceil(fraction * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i];
    if (seen >= rank) return Math.round(upperBound(i) * 10) / 10;
  }
  return null;
}

/** `{"bucket": count}` of the non-empty buckets (what AppRequestMinute.latency stores). */
export function encodeHistogram(histogram: Histogram): string {
  const sparse: Record<number, number> = {};
  histogram.forEach((count, i) => count && (sparse[i] = count));
  return JSON.stringify(sparse);
}

/** Adds an encoded histogram into `into`. */
export function addEncoded(into: Histogram, encoded: string): void {
  for (const [bucket, count] of Object.entries(JSON.parse(encoded) as Record<string, number>)) {
    const i = Number(bucket);
    if (i >= 0 && i < into.length) into[i] += count;
  }
}
