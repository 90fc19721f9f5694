import type { Executor } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';
import type { OutboxContext } from './context.js';
import type { NewEvent } from './schemas.js';

/** Writes `events` through `executor`, in the caller's transaction (or statement). */
export async function appendEvents(
  { repo }: OutboxContext,
  executor: Executor,
  events: readonly NewEvent[],
): Promise<void> {
  const now = nowIso();
  await repo.insert(
    executor,
    events.map((event) => ({
      type: event.type,
      occurredAt: event.occurredAt ?? now,
      organisationId: event.organisationId,
      userId: event.userId,
      data: JSON.stringify(event.data),
    })),
  );
}
