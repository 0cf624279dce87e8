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
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (let event = await iterator.next(); !event.done; event = await iterator.next()) {
      const refusal = await refreshViewer(args.contextValue as Context);
      if (refusal) {
        // The error formatter (masking) gives it the contract's code, like any error from a resolver.
        yield { errors: [new GraphQLError(refusal.message, { originalError: refusal })] };
        return;
      }
      yield await execute({ ...args, rootValue: event.value });
    }
  } finally {
    await iterator.return?.();
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
