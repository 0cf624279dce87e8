// Requests are handled one phase of the event loop after they are read: every request whose bytes arrived in
// the same poll phase is started, one after another, in one callback of the check phase that follows.
//
// Why: writing a response to a peer that sleeps costs a cross-CPU wakeup inside the write system call (an
// inter-processor interrupt, which a virtual machine pays in a hypervisor exit). Answered as each is read, a
// loaded server's responses go out spread over the time it spends reading the next requests, and a peer on the
// same machine (the edge, a load balancer, a client) wakes for nearly every one. Started in one callback, the
// batch's synchronous work runs first, and the answers that then complete in promise reactions (every route
// that awaits nothing but cached reads) leave together when the microtask queue drains: the peer is woken by
// the first and is still running for the others. Measured in bench/RESULTS.md (`me-layers`).
// An idle server answers one loop phase later (microseconds).
import type { FastifyInstance } from "fastify";

/** Registered before every other hook, so that no request work runs before the batch is complete. */
export function registerBatchedTurns(app: FastifyInstance) {
  let pending: (() => void)[] = [];
  const startBatch = () => {
    const batch = pending;
    pending = [];
    for (const start of batch) start(); // Fastify catches what hooks and handlers throw
  };
  app.addHook("onRequest", (_request, _reply, done) => {
    if (pending.push(done) === 1) setImmediate(startBatch);
  });
}
