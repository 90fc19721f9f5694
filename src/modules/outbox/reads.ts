import type { OutboxContext } from './context.js';
import type { EventFilter, StoredEvent } from './repo.js';
import type { OutboxEvent } from './schemas.js';

/** A stored event as readers see it: its data parsed, and mapped to its API record where it is stored otherwise. */
function toEvent({ records }: OutboxContext, row: StoredEvent): OutboxEvent {
  const stored: unknown = JSON.parse(row.data);
  const map = records[row.dataFormat];
  return {
    id: String(row.position),
    type: row.type,
    occurredAt: row.occurredAt,
    organisationId: row.organisationId,
    userId: row.userId,
    data: map ? map(stored, row.occurredAt) : stored,
  };
}

/** The events after `after` that pass `filter`, in id order, up to `limit`; sequenced first, so gapless. */
export async function readEvents(
  ctx: OutboxContext,
  after: string | null | undefined,
  limit: number,
  filter: EventFilter,
): Promise<OutboxEvent[]> {
  await ctx.sequence();
  const rows = await ctx.repo.readAfter(after ? Number(after) : null, limit, filter);
  return rows.map((row) => toEvent(ctx, row));
}

/** The id of the newest event a reader can be given now (null: none). */
export async function lastPosition({ repo, sequence }: OutboxContext): Promise<string | null> {
  await sequence();
  const last = await repo.lastPosition();
  return last === 0 ? null : String(last);
}
