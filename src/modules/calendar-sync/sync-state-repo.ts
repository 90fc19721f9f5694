import type { ExpressionBuilder } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/types.js';

/**
 * When and by whom a mapping syncs: its cursor after a sync, its push channel, the claims
 * of the poll and the lease one instance holds while it syncs.
 */
export function createSyncStateRepo(db: Executor) {
  return {
    async setSyncResult(
      id: number,
      values: { syncToken: string; syncWindowEnd: string | null; lastSyncedAt: string },
    ): Promise<void> {
      await db
        .updateTable('calendarSyncMappings')
        .set({ ...values, updatedAt: values.lastSyncedAt })
        .where('id', '=', id)
        .where('state', '=', 'active')
        .execute();
    },

    async setChannel(
      id: number,
      channel: { channelId: string; resourceId: string | null; tokenHash: string; expiresAt: string } | null,
      now: string,
    ): Promise<void> {
      await db
        .updateTable('calendarSyncMappings')
        .set({
          channelId: channel?.channelId ?? null,
          channelResourceId: channel?.resourceId ?? null,
          channelTokenHash: channel?.tokenHash ?? null,
          channelExpiresAt: channel?.expiresAt ?? null,
          updatedAt: now,
        })
        .where('id', '=', id)
        .execute();
    },

    async extendChannel(id: number, expiresAt: string, now: string): Promise<void> {
      await db
        .updateTable('calendarSyncMappings')
        .set({ channelExpiresAt: expiresAt, updatedAt: now })
        .where('id', '=', id)
        .execute();
    },

    /** Active mappings of connected users whose channel is missing or ends before `before`. */
    async listChannelsToRenew(before: string, limit: number): Promise<number[]> {
      const rows = await db
        .selectFrom('calendarSyncMappings as m')
        .innerJoin('calendarSyncConnections as c', (join) =>
          join.onRef('c.userId', '=', 'm.userId').onRef('c.provider', '=', 'm.provider'),
        )
        .select('m.id')
        .where('m.state', '=', 'active')
        .where('c.state', '=', 'connected')
        .where((eb) => eb.or([eb('m.channelExpiresAt', 'is', null), eb('m.channelExpiresAt', '<', before)]))
        .orderBy('m.channelExpiresAt')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    /**
     * Claims the mappings due for a poll and answers their ids. The claim is one UPDATE that
     * re-checks the due condition, so instances polling at once each claim different mappings.
     * Due: no live channel and not polled for `pollCutoff`; with a live channel (push works)
     * a slower safety poll after `channelCutoff`.
     */
    async claimDueForPoll(
      now: string,
      pollCutoff: string,
      channelCutoff: string,
      limit: number,
    ): Promise<number[]> {
      const due = (eb: ExpressionBuilder<Database, 'calendarSyncMappings'>) =>
        eb.or([
          eb.and([
            eb.or([eb('channelExpiresAt', 'is', null), eb('channelExpiresAt', '<=', now)]),
            eb.or([eb('lastPolledAt', 'is', null), eb('lastPolledAt', '<', pollCutoff)]),
          ]),
          eb.and([
            eb('channelExpiresAt', '>', now),
            eb.or([eb('lastPolledAt', 'is', null), eb('lastPolledAt', '<', channelCutoff)]),
          ]),
        ]);
      const rows = await db
        .updateTable('calendarSyncMappings')
        .set({ lastPolledAt: now })
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('calendarSyncMappings as m')
            .innerJoin('calendarSyncConnections as c', (join) =>
              join.onRef('c.userId', '=', 'm.userId').onRef('c.provider', '=', 'm.provider'),
            )
            .select('m.id')
            .where('m.state', '=', 'active')
            .where('c.state', '=', 'connected')
            .where((inner) =>
              inner.or([
                inner.and([
                  inner.or([inner('m.channelExpiresAt', 'is', null), inner('m.channelExpiresAt', '<=', now)]),
                  inner.or([inner('m.lastPolledAt', 'is', null), inner('m.lastPolledAt', '<', pollCutoff)]),
                ]),
                inner.and([
                  inner('m.channelExpiresAt', '>', now),
                  inner.or([
                    inner('m.lastPolledAt', 'is', null),
                    inner('m.lastPolledAt', '<', channelCutoff),
                  ]),
                ]),
              ]),
            )
            .orderBy('m.lastPolledAt')
            .limit(limit),
        )
        .where('state', '=', 'active')
        .where(due)
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    },

    /** Takes the mapping's lease when free or expired; answers whether it did. */
    async acquireLease(id: number, owner: string, until: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('calendarSyncMappings')
        .set({ leaseOwner: owner, leaseUntil: until })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async releaseLease(id: number, owner: string): Promise<void> {
      await db
        .updateTable('calendarSyncMappings')
        .set({ leaseOwner: null, leaseUntil: null })
        .where('id', '=', id)
        .where('leaseOwner', '=', owner)
        .execute();
    },
  };
}

export type SyncStateRepo = ReturnType<typeof createSyncStateRepo>;
