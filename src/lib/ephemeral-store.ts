import type { Redis } from 'ioredis';
import { loadDriver } from './load-driver.js';

/**
 * Short-lived shared state (login attempt counters, honeypot blocks). Redis when
 * REDIS_URL is set, so every instance sees the same counts; in-process otherwise.
 */
export interface EphemeralStore {
  /** Counts one hit in a fixed window; answers the count so far and seconds until the window resets. */
  hit(key: string, windowSeconds: number): Promise<{ count: number; resetInSeconds: number }>;
  /** Marks `key` for `ttlSeconds`. */
  mark(key: string, ttlSeconds: number): Promise<void>;
  isMarked(key: string): Promise<boolean>;
  /** Keeps under `key` the greater, in text order, of what it holds and `value`, for `ttlSeconds` from now. */
  keepGreatest(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** What `key` holds (from `keepGreatest`), unless it expired. */
  read(key: string): Promise<string | undefined>;
  close(): Promise<void>;
  /** The Redis client, when there is one, for plugins that take it directly. */
  readonly redis?: Redis;
}

export function createEphemeralStore(redisUrl: string | undefined): EphemeralStore {
  if (!redisUrl) return new MemoryStore();
  const { Redis: Client } = loadDriver<typeof import('ioredis')>('ioredis');
  // A command Redis does not answer in 2 s fails (503 for its request) rather than holding the
  // request while a silent network is noticed; a failed command never waits more than two reconnects.
  const redis = new Client(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2, commandTimeout: 2_000 });
  // ioredis reconnects by itself; without a listener it prints every failed attempt.
  redis.on('error', () => {});
  return new RedisStore(redis);
}

class MemoryStore implements EphemeralStore {
  private readonly entries = new Map<string, { count: number; expiresAt: number }>();
  private readonly values = new Map<string, { value: string; expiresAt: number }>();
  private lastSweep = Date.now();

  async hit(key: string, windowSeconds: number) {
    const now = Date.now();
    this.sweep(now);
    let entry = this.entries.get(key);
    if (!entry || entry.expiresAt <= now) {
      entry = { count: 0, expiresAt: now + windowSeconds * 1000 };
      this.entries.set(key, entry);
    }
    entry.count += 1;
    return { count: entry.count, resetInSeconds: Math.ceil((entry.expiresAt - now) / 1000) };
  }

  async mark(key: string, ttlSeconds: number) {
    this.entries.set(key, { count: 1, expiresAt: Date.now() + ttlSeconds * 1000 });
  }

  async isMarked(key: string) {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.expiresAt > Date.now();
  }

  async keepGreatest(key: string, value: string, ttlSeconds: number) {
    const now = Date.now();
    this.sweep(now);
    const held = await this.read(key);
    const kept = held !== undefined && held > value ? held : value;
    this.values.set(key, { value: kept, expiresAt: now + ttlSeconds * 1000 });
  }

  async read(key: string) {
    const entry = this.values.get(key);
    return entry !== undefined && entry.expiresAt > Date.now() ? entry.value : undefined;
  }

  async close() {
    this.entries.clear();
    this.values.clear();
  }

  // Expired entries are dropped at most once a minute so memory stays bounded.
  private sweep(now: number) {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    for (const [key, entry] of this.values) if (entry.expiresAt <= now) this.values.delete(key);
  }
}

const KEEP_GREATEST = `
local held = redis.call('GET', KEYS[1])
if held and held > ARGV[1] then redis.call('EXPIRE', KEYS[1], ARGV[2]) else redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) end`;

class RedisStore implements EphemeralStore {
  constructor(readonly redis: Redis) {}

  async hit(key: string, windowSeconds: number) {
    const result = await this.redis.multi().incr(key).expire(key, windowSeconds, 'NX').ttl(key).exec();
    const count = Number(result?.[0]?.[1] ?? 1);
    const ttl = Number(result?.[2]?.[1] ?? windowSeconds);
    return { count, resetInSeconds: ttl > 0 ? ttl : windowSeconds };
  }

  async mark(key: string, ttlSeconds: number) {
    await this.redis.set(key, '1', 'EX', ttlSeconds);
  }

  async isMarked(key: string) {
    return (await this.redis.exists(key)) === 1;
  }

  async keepGreatest(key: string, value: string, ttlSeconds: number) {
    // One script, so two instances raising the same key at once keep the greater.
    await this.redis.eval(KEEP_GREATEST, 1, key, value, ttlSeconds);
  }

  async read(key: string) {
    return (await this.redis.get(key)) ?? undefined;
  }

  async close() {
    await this.redis.quit();
  }
}
