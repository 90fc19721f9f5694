/**
 * What a drain has read of organisations and types, for the page of events it is on (a burst
 * of bookings is mostly one organisation's); outside a drain's page every read goes afresh.
 */
export interface PageLookups {
  /** `read` once a key while a page is on; afresh outside one. */
  lookup<T>(key: string, read: () => Promise<T>): Promise<T>;
  /** Runs `work` with the reads kept for one page, forgotten once it ends. */
  forPage<T>(work: () => Promise<T>): Promise<T>;
}

export function createPageLookups(): PageLookups {
  let page: Map<string, Promise<unknown>> | null = null;
  return {
    lookup<T>(key: string, read: () => Promise<T>): Promise<T> {
      if (!page) return read();
      let found = page.get(key) as Promise<T> | undefined;
      if (!found) {
        found = read();
        page.set(key, found);
      }
      return found;
    },
    async forPage<T>(work: () => Promise<T>): Promise<T> {
      page = new Map();
      try {
        return await work();
      } finally {
        page = null;
      }
    },
  };
}
