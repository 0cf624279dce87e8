// "Load more" for a list the API pages with `first`/`after`: the first page comes from whatever loads the list
// (the page's load, a subscription, the component's own query); further pages are fetched on demand and
// appended. A new first page (a refresh after an action, a subscription event) drops the pages appended to the
// old one: the list starts again from the top rather than mixing fresh rows with stale ones.

/** Fetches the page after the item with this id; null when it failed (the fetcher has said why). */
export type PageFetcher<T> = (after: string) => Promise<readonly T[] | null>;

interface Appended<T> {
  /** The first page these pages follow: they are shown only while it is the current one. */
  to: readonly T[];
  items: readonly T[];
  lastPageSize: number;
}

export class MorePages<T extends { id: string }> {
  readonly size: number;
  #first: () => readonly T[];
  #fetch: PageFetcher<T>;
  // Raw, so that `to` keeps the identity of the first page it was appended to.
  #appended = $state.raw<Appended<T> | null>(null);
  loading = $state(false);

  /** `size` is the page size asked of the API; `first` reads the current first page (reactively). */
  constructor(size: number, first: () => readonly T[], fetch: PageFetcher<T>) {
    this.size = size;
    this.#first = first;
    this.#fetch = fetch;
  }

  #current(): Appended<T> | null {
    const appended = this.#appended;
    return appended && appended.to === this.#first() ? appended : null;
  }

  /** The first page, then the pages loaded after it. */
  get items(): readonly T[] {
    const appended = this.#current();
    return appended ? [...this.#first(), ...appended.items] : this.#first();
  }

  /** Whether the last page came back full: there may be more. */
  get more(): boolean {
    return (this.#current()?.lastPageSize ?? this.#first().length) >= this.size;
  }

  /** Appends the next page; returns its first item, or null when it failed, was empty or a refresh came first. */
  async load(): Promise<T | null> {
    const last = this.items.at(-1);
    if (this.loading || !last) return null;
    const first = this.#first();
    this.loading = true;
    const page = await this.#fetch(last.id);
    this.loading = false;
    if (!page || this.#first() !== first) return null;
    const before = this.#current()?.items ?? [];
    this.#appended = { to: first, items: [...before, ...page], lastPageSize: page.length };
    return page[0] ?? null;
  }
}
