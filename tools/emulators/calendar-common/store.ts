// An append-only change log per calendar: every write gives the item a new,
// globally increasing sequence number and appends `{seq, id}`. A page of a full
// or incremental sync is a binary search to its starting sequence number and a
// forward scan, so each page costs O(page), not O(calendar).

export interface Sequenced {
  id: string;
  seq: number;
}

interface Entry {
  seq: number;
  id: string;
}

export class ChangeLog<T extends Sequenced> {
  /** Current version of every item, tombstones included. */
  readonly items = new Map<string, T>();
  private log: Entry[] = [];
  private stale = 0;

  get size(): number {
    return this.items.size;
  }

  /** Stores `item` (whose `seq` the caller has just raised above every other). */
  put(item: T): void {
    const last = this.log[this.log.length - 1];
    if (last && last.seq >= item.seq) throw new Error('ChangeLog: sequence numbers must increase');
    if (this.items.has(item.id)) this.stale += 1;
    this.items.set(item.id, item);
    this.log.push({ seq: item.seq, id: item.id });
    if (this.stale > 4096 && this.stale * 2 > this.log.length) this.compact();
  }

  get(id: string): T | undefined {
    return this.items.get(id);
  }

  /**
   * Current items whose last change has `after < seq <= upTo`, oldest change
   * first. Do not write to the log while iterating.
   */
  *scan(after: number, upTo: number): Generator<T> {
    const log = this.log;
    let low = 0;
    let high = log.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (log[mid]!.seq <= after) low = mid + 1;
      else high = mid;
    }
    for (let i = low; i < log.length; i += 1) {
      const entry = log[i]!;
      if (entry.seq > upTo) return;
      const item = this.items.get(entry.id);
      if (item && item.seq === entry.seq) yield item;
    }
  }

  private compact(): void {
    this.log = this.log.filter((entry) => this.items.get(entry.id)?.seq === entry.seq);
    this.stale = 0;
  }
}

/** A bounded list: keeps the newest `max` entries. */
export class Ring<T> {
  private entries: T[] = [];
  constructor(private readonly max: number) {}

  push(entry: T): void {
    this.entries.push(entry);
    if (this.entries.length > this.max * 1.25) this.entries = this.entries.slice(-this.max);
  }

  list(): T[] {
    return this.entries.slice(-this.max);
  }

  clear(): void {
    this.entries = [];
  }
}

/**
 * Collects items per key and hands each key's batch to `flush` once the
 * current burst of changes is over (after `delayMs`, or on the next turn of
 * the event loop when 0), so a bulk write sends one notification, not
 * thousands.
 */
export class Batcher<K, V> {
  private readonly pending = new Map<K, V[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly delayMs: number,
    private readonly flush: (key: K, items: V[]) => void,
  ) {}

  add(key: K, item: V): void {
    const list = this.pending.get(key);
    if (list) list.push(item);
    else this.pending.set(key, [item]);
    this.timer ??= setTimeout(() => this.run(), this.delayMs);
  }

  /** Flushes now (used by close/reset). */
  run(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batches = [...this.pending];
    this.pending.clear();
    for (const [key, items] of batches) this.flush(key, items);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}
