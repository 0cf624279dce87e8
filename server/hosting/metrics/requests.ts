// What the router answered per app since the last drain: requests, 5xx among them, and a histogram of the times to
// the response headers. The router calls record() once per answer (a map read, two increments, one array write);
// the metrics recorder drains it once a minute into that process's AppRequestMinute rows.
import { bucketOf, newHistogram, type Histogram } from "./latency.ts";

export interface RequestTally {
  requests: number;
  errors: number;
  latency: Histogram;
}

export class RequestCounts {
  private tallies = new Map<string, RequestTally>();

  record(slug: string, status: number, ms: number): void {
    let tally = this.tallies.get(slug);
    if (tally === undefined) this.tallies.set(slug, (tally = { requests: 0, errors: 0, latency: newHistogram() }));
    tally.requests++;
    if (status >= 500) tally.errors++;
    tally.latency[bucketOf(ms)]++;
  }

  /** What was recorded since the last drain, by slug; counting starts again from zero. */
  drain(): Map<string, RequestTally> {
    const drained = this.tallies;
    this.tallies = new Map();
    return drained;
  }
}
