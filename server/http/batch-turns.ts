// Requests are handled one phase of the event loop after they are read: every request whose bytes arrived in
// the same poll phase is answered back-to-back in the check phase that follows.
//
// Why: writing a response to a peer that sleeps costs a cross-CPU wakeup inside the write system call (an
// inter-processor interrupt, which a virtual machine pays in a hypervisor exit). Answered as each is read, a
// loaded server's responses go out spread over the time it spends reading the next requests, and a peer on the
// same machine (the edge, a load balancer, a client) wakes for nearly every one. Answered together, the peer
// is woken by the first and is still running for the others. Measured in bench/RESULTS.md (`me-layers`).
// The cost is one Immediate per request; an idle server answers one loop phase later (microseconds).
import type { FastifyInstance } from "fastify";

/** Registered before every other hook, so that no request work runs before the batch is complete. */
export function registerBatchedTurns(app: FastifyInstance) {
  app.addHook("onRequest", (_request, _reply, done) => {
    setImmediate(done);
  });
}
