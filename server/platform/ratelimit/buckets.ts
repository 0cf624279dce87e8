// Hits are grouped by the moment they leave their window, rounded up to 1/100 of the window: a key keeps at
// most ~100 groups whatever its limit, and since a hit is only ever counted longer than its window, never
// shorter, no window-long span can hold more hits than the limit allows. The cost: a refused caller may
// wait up to 1% of the window longer than an exact log would make it.
export const BUCKETS_PER_WINDOW = 100;

export function bucketSize(windowMs: number): number {
  return Math.max(1, Math.ceil(windowMs / BUCKETS_PER_WINDOW));
}

/** When a hit at `now` leaves a window of `windowMs`, rounded up to its group. */
export function bucketOf(now: number, windowMs: number): number {
  const size = bucketSize(windowMs);
  return Math.ceil((now + windowMs) / size) * size;
}
