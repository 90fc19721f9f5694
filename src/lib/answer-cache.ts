/**
 * Least-recently-used answers bounded by their total weight (what the caller counts:
 * availability windows and slots, listed resources), so a few huge answers and many
 * small ones cost the same memory. Concurrent misses of one
 * key share one computation; a failure is never stored. An answer that is true only
 * for a while (`isFresh` says when it no longer is) is dropped on the first read after.
 */
export class AnswerCache<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private readonly inFlight = new Map<string, Promise<V>>();
  private total = 0;

  constructor(
    private readonly maxWeight: number,
    private readonly weigh: (value: V) => number,
    private readonly isFresh: (value: V) => boolean = () => true,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The stored answer of `key`, or the one `compute` gives (shared with concurrent callers). */
  get(key: string, compute: () => Promise<V>): Promise<V> {
    let entry = this.entries.get(key);
    if (entry && !this.isFresh(entry.value)) {
      this.entries.delete(key);
      this.total -= entry.weight;
      entry = undefined;
    }
    if (entry) {
      // Map order is insertion order: re-inserting makes it the most recent.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return Promise.resolve(entry.value);
    }
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = compute().then(
      (value) => {
        this.inFlight.delete(key);
        this.store(key, value);
        return value;
      },
      (error: unknown) => {
        this.inFlight.delete(key);
        throw error;
      },
    );
    this.inFlight.set(key, promise);
    return promise;
  }

  private store(key: string, value: V): void {
    const weight = this.weigh(value) + 1;
    if (weight > this.maxWeight || !this.isFresh(value)) return;
    const replaced = this.entries.get(key);
    if (replaced) {
      this.entries.delete(key);
      this.total -= replaced.weight;
    }
    this.entries.set(key, { value, weight });
    this.total += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxWeight) break;
      this.entries.delete(oldest);
      this.total -= entry.weight;
    }
  }
}
