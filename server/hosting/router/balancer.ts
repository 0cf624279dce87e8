// Picks the instance of an app a request goes to: the one with the fewest requests in flight, ties broken
// round-robin (so equal instances share an even load, and a slow one gets fewer new requests).
import type { Upstream } from "./types.ts";

export class Balancer {
  private readonly inFlight = new Map<string, number>();
  private turn = 0;

  /** The chosen upstream, never one of `exclude` unless it is all there is. */
  pick(upstreams: readonly Upstream[], exclude?: Upstream): Upstream {
    if (upstreams.length === 1) return upstreams[0];
    const start = this.turn++ % upstreams.length;
    let best: Upstream | null = null;
    let bestLoad = Infinity;
    for (let i = 0; i < upstreams.length; i++) {
      const upstream = upstreams[(start + i) % upstreams.length];
      if (exclude && same(upstream, exclude)) continue;
      const load = this.inFlight.get(key(upstream)) ?? 0;
      if (load < bestLoad) {
        best = upstream;
        bestLoad = load;
      }
    }
    return best ?? upstreams[start];
  }

  /** Counts a request to the upstream until the returned function is called. */
  begin(upstream: Upstream): () => void {
    const k = key(upstream);
    this.inFlight.set(k, (this.inFlight.get(k) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.inFlight.get(k) ?? 1) - 1;
      if (left > 0) this.inFlight.set(k, left);
      else this.inFlight.delete(k);
    };
  }
}

const key = (u: Upstream) => `${u.host}:${u.port}`;
const same = (a: Upstream, b: Upstream) => a.host === b.host && a.port === b.port;
