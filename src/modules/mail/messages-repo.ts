import { sql } from 'kysely';
import { compiledPerCount, type Executor } from '../../db/database.js';
import { chunks } from '../../lib/chunks.js';

export const MAIL_CONSUMER = 'mail';

export interface ClaimInput {
  dedupeKey: string;
  eventId: string | null;
  kind: string;
  organisationId: number | null;
  recipient: string;
  subject: string;
  messageId: string;
  now: string;
  /** A `sending` row claimed before this is a crashed send: it may be taken again. */
  staleBefore: string;
}

/**
 * Rows one of the drain's group statements writes at most, and the events of a send group
 * (service.ts SEND_GROUP, one home for both): a longer list (an event mailing several owners)
 * is written in parts.
 */
export const GROUP_ROWS = 25;

/** What a claim found: this caller sends now, or the mail is done, or another sender holds it. */
export type Claim = { outcome: 'claimed'; id: number } | { outcome: 'sent' | 'failed' | 'busy' };

/** The drain's side of the mail tables: its position in the outbox, and each mail's claim and outcome. */
export function createMessagesRepo(db: Executor) {
  // The drain's per-group statements, compiled once a group size (Kysely built and compiled each
  // on every call: about a third of what the drain cost the request thread). Literals where the
  // value is fixed, so the parameters are only the values that vary, in the order they appear.
  const insertClaims = compiledPerCount((count) =>
    db
      .insertInto('mailMessages')
      .values(
        Array.from({ length: count }, () => ({
          dedupeKey: '',
          eventId: '',
          kind: '',
          organisationId: 0,
          recipient: '',
          subject: '',
          messageId: '',
          status: sql.lit('sending' as const),
          attempts: sql.lit(1),
          claimedAt: '',
          createdAt: '',
        })),
      )
      .onConflict((oc) => oc.column('dedupeKey').doNothing())
      .returning(['id', 'dedupeKey']),
  );
  const updateSent = compiledPerCount((count) =>
    db
      .updateTable('mailMessages')
      .set({
        status: sql.lit('sent' as const),
        sentAt: '',
        lastError: sql.lit(null),
        claimedAt: sql.lit(null),
      })
      .where(
        'id',
        'in',
        Array.from({ length: count }, () => 0),
      ),
  );

  /** A claim for a key that has a row: done, held by another sender, or a stale claim taken over. */
  async function takeOver(input: ClaimInput): Promise<Claim> {
    const existing = await db
      .selectFrom('mailMessages')
      .select(['id', 'status', 'claimedAt'])
      .where('dedupeKey', '=', input.dedupeKey)
      .executeTakeFirst();
    if (!existing) return { outcome: 'busy' };
    if (existing.status === 'sent' || existing.status === 'failed') return { outcome: existing.status };
    // A `sending` row with no claim was released after a failed attempt; an old claim crashed.
    const claimedAt = existing.claimedAt === null ? null : new Date(existing.claimedAt).toISOString();
    if (claimedAt !== null && claimedAt >= input.staleBefore) return { outcome: 'busy' };
    const taken = await db
      .updateTable('mailMessages')
      .set((eb) => ({ claimedAt: input.now, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', existing.id)
      .where('status', '=', 'sending')
      .where((eb) =>
        existing.claimedAt === null ? eb('claimedAt', 'is', null) : eb('claimedAt', '=', existing.claimedAt),
      )
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1 ? { outcome: 'claimed', id: existing.id } : { outcome: 'busy' };
  }

  return {
    async position(): Promise<string | null> {
      const row = await db
        .selectFrom('mailConsumerPositions')
        .select('lastEventId')
        .where('consumer', '=', MAIL_CONSUMER)
        .executeTakeFirst();
      return row?.lastEventId ?? null;
    },

    /**
     * Moves the position from `from` to `to` only if it still stands at `from`: two
     * drains never both move it, and the one that loses stops.
     */
    async advance(from: string | null, to: string, now: string): Promise<boolean> {
      if (from === null) {
        const inserted = await db
          .insertInto('mailConsumerPositions')
          .values({ consumer: MAIL_CONSUMER, lastEventId: to, updatedAt: now })
          .onConflict((oc) => oc.column('consumer').doNothing())
          .executeTakeFirst();
        return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
      }
      const updated = await db
        .updateTable('mailConsumerPositions')
        .set({ lastEventId: to, updatedAt: now })
        .where('consumer', '=', MAIL_CONSUMER)
        .where('lastEventId', '=', from)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    /**
     * Claims a group of mails by their dedupe keys (distinct), answering a claim for each in
     * order: new rows in one statement; for a key that has a row, that row's state, or a crashed
     * send's stale claim taken over (compare-and-set on its claim time), so two senders never
     * both send one mail. After the first mail another sender holds, every key without a new
     * row answers `busy` unread.
     */
    async claimAll(inputs: ClaimInput[]): Promise<Claim[]> {
      const claimed = new Map<string, number>();
      for (const group of chunks(inputs, GROUP_ROWS)) {
        const { rows } = await insertClaims(
          db,
          group.length,
          group.flatMap((input) => [
            input.dedupeKey,
            input.eventId,
            input.kind,
            input.organisationId,
            input.recipient,
            input.subject,
            input.messageId,
            input.now,
            input.now,
          ]),
        );
        for (const row of rows) claimed.set(row.dedupeKey, row.id);
      }
      const claims: Claim[] = [];
      let held = false;
      for (const input of inputs) {
        const id = claimed.get(input.dedupeKey);
        if (id !== undefined) claims.push({ outcome: 'claimed', id });
        // Past a mail another sender holds, the caller stops: the rows after it are not read.
        else if (held) claims.push({ outcome: 'busy' });
        else {
          const claim = await takeOver(input);
          held = claim.outcome === 'busy';
          claims.push(claim);
        }
      }
      return claims;
    },

    /** Marks sent mails, a group in one statement. */
    async markSent(ids: number[], now: string) {
      for (const group of chunks(ids, GROUP_ROWS)) await updateSent(db, group.length, [now, ...group]);
    },

    /** The SMTP server refused the mail for good: it is not tried again. */
    async markFailed(id: number, error: string) {
      await db
        .updateTable('mailMessages')
        .set({ status: 'failed', sentAt: null, lastError: error, claimedAt: null })
        .where('id', '=', id)
        .execute();
    },

    /**
     * Lets claims go unsent (a failure worth another try, with its error; or a drain that
     * stopped before them): the next drain sends them at once, without waiting for the lease.
     */
    async release(ids: number[], error?: string) {
      if (ids.length === 0) return;
      await db
        .updateTable('mailMessages')
        .set(error === undefined ? { claimedAt: null } : { claimedAt: null, lastError: error })
        .where('id', 'in', ids)
        .execute();
    },

    /** The claim rows older than `before` (the outbox keeps events as long). */
    async purgeBefore(before: string): Promise<number> {
      const deleted = await db.deleteFrom('mailMessages').where('createdAt', '<', before).executeTakeFirst();
      return Number(deleted.numDeletedRows);
    },
  };
}
