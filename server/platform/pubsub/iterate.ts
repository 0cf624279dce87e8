/**
 * Wraps `events.on(...)` so that ending the subscription always releases it, even when it ends
 * before the first `next()` (an async generator's `finally` would not run then).
 */
export function subscription(events: AsyncIterator<unknown[]>, release: () => unknown = () => {}): AsyncIterableIterator<unknown> {
  let released = false;
  const end = async () => {
    if (released) return;
    released = true;
    await events.return?.();
    await release();
  };
  return {
    async next() {
      const result = await events.next();
      return result.done ? { done: true, value: undefined } : { done: false, value: result.value[0] };
    },
    async return() {
      await end();
      return { done: true, value: undefined };
    },
    async throw(error?: unknown) {
      await end();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
