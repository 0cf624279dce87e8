// Two async streams as one, each item tagged with the stream it came from, in the order they arrive. Ends when
// both have; returning early returns both.
export type Tagged<A, B> = { from: "a"; value: A } | { from: "b"; value: B };

export async function* mergeStreams<A, B>(a: AsyncIterator<A>, b: AsyncIterator<B>): AsyncGenerator<Tagged<A, B>> {
  const next = {
    a: () => a.next().then((result) => ({ from: "a" as const, result })),
    b: () => b.next().then((result) => ({ from: "b" as const, result })),
  };
  const pending = new Map<"a" | "b", Promise<{ from: "a" | "b"; result: IteratorResult<A | B> }>>([
    ["a", next.a()],
    ["b", next.b()],
  ]);
  try {
    while (pending.size) {
      const { from, result } = await Promise.race(pending.values());
      if (result.done) {
        pending.delete(from);
        continue;
      }
      pending.set(from, next[from]());
      yield { from, value: result.value } as Tagged<A, B>;
    }
  } finally {
    await Promise.all([a.return?.(), b.return?.()]);
  }
}
