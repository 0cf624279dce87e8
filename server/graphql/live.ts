// Subscriptions outlive the request that authenticated them (a WebSocket connection, an event stream), so a
// subscription re-checks its caller before each event: a session signed out, a token revoked or an account
// suspended ends the stream with one error, and a changed role or status applies from the next event on.
import { createSourceEventStream, execute, GraphQLError, type ExecutionArgs, type ExecutionResult } from "graphql";
import type { Plugin } from "graphql-yoga";
import { AccountSuspendedError, UnauthenticatedError, type AppError } from "../errors.ts";
import type { Context } from "./context.ts";

/** Replaces the subscribe step with graphql-js's own, plus the check between each source event and its execution. */
export function reauthenticatedSubscriptions(): Plugin {
  return {
    onSubscribe: ({ setSubscribeFn }) =>
      setSubscribeFn(async (args: ExecutionArgs) => {
        const source = await createSourceEventStream(args);
        return Symbol.asyncIterator in source ? liveResults(args, source) : source;
      }),
  };
}

async function* liveResults(args: ExecutionArgs, source: AsyncIterable<unknown>): AsyncGenerator<ExecutionResult> {
  const ctx = args.contextValue as Context;
  const iterator = source[Symbol.asyncIterator]();
  // A signed-in subscriber's account changes (a suspension, a role change) are checked as they happen, not
  // only at the next event, so a suspended account's streams end at once, on every instance.
  const account = ctx.viewer ? await ctx.services.accounts.changes(ctx.viewer.user.id) : null;
  let event = iterator.next();
  let pending = true;
  try {
    let change = account?.next();
    for (;;) {
      const next = await (change ? Promise.race([event.then((e) => ({ e })), change.then(() => null)]) : event.then((e) => ({ e })));
      if (next) pending = false;
      if (next && next.e.done) return;
      const refusal = await refreshViewer(ctx);
      if (refusal) {
        // The error formatter (masking) gives it the contract's code, like any error from a resolver.
        yield { errors: [new GraphQLError(refusal.message, { originalError: refusal })] };
        return;
      }
      if (!next) {
        change = account!.next();
        continue;
      }
      yield await execute({ ...args, rootValue: next.e.value });
      event = iterator.next();
      pending = true;
    }
  } finally {
    await account?.return?.();
    // A source generator waiting for its next event cannot return before that event: do not wait for it.
    const ended = iterator.return?.();
    if (!pending) await ended;
    else ended?.catch(() => {});
  }
}

/** Authenticates the subscriber again; the context takes the fresh viewer. Anonymous subscribers stay anonymous. */
async function refreshViewer(ctx: Context): Promise<AppError | null> {
  const before = ctx.viewer;
  if (!before) return null;
  const { viewer, error } = await ctx.reauthenticate();
  if (!viewer || viewer.user.id !== before.user.id) return error ?? new UnauthenticatedError("Your session has ended: sign in again.");
  if (viewer.user.status === "SUSPENDED") return new AccountSuspendedError();
  ctx.viewer = viewer;
  return null;
}
