import { randomUUID } from 'node:crypto';
import type { Executor } from '../../db/database.js';
import type { ProviderAccount } from './provider.js';
import type { ProviderConnectStatus } from './tables.js';

export interface StoredConnection {
  providerAccountId: string | null;
  providerConnectStatus: ProviderConnectStatus;
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
  detailsSubmitted: boolean;
  currentlyDue: string[];
  pendingVerification: string[];
  disabledReason: string | null;
  /** Idempotency key for creating the account of the current connection attempt. */
  connectionKey: string;
}

/** `pending` until details are submitted and charges are enabled, then `active`. */
export function connectStatusOf(account: ProviderAccount): ProviderConnectStatus {
  return account.detailsSubmitted && account.chargesEnabled ? 'active' : 'pending';
}

const newConnectionKey = (organisationId: number) => `organisation-${organisationId}-${randomUUID()}`;

function accountColumns(account: ProviderAccount, now: string) {
  return {
    providerAccountId: account.id,
    connectStatus: connectStatusOf(account),
    chargesEnabled: account.chargesEnabled,
    payoutsEnabled: account.payoutsEnabled,
    detailsSubmitted: account.detailsSubmitted,
    currentlyDue: JSON.stringify(account.currentlyDue),
    pendingVerification: JSON.stringify(account.pendingVerification),
    disabledReason: account.disabledReason,
    syncedAt: now,
    updatedAt: now,
  };
}

export function createPaymentRepo(db: Executor) {
  return {
    async find(organisationId: number): Promise<StoredConnection | undefined> {
      const row = await db
        .selectFrom('organisationPaymentAccounts')
        .select([
          'providerAccountId',
          'connectStatus',
          'chargesEnabled',
          'payoutsEnabled',
          'detailsSubmitted',
          'currentlyDue',
          'pendingVerification',
          'disabledReason',
          'connectionKey',
        ])
        .where('organisationId', '=', organisationId)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        providerAccountId: row.providerAccountId,
        providerConnectStatus: row.connectStatus,
        chargesEnabled: Boolean(row.chargesEnabled),
        payoutsEnabled: Boolean(row.payoutsEnabled),
        detailsSubmitted: Boolean(row.detailsSubmitted),
        currentlyDue: JSON.parse(row.currentlyDue) as string[],
        pendingVerification: JSON.parse(row.pendingVerification) as string[],
        disabledReason: row.disabledReason,
        connectionKey: row.connectionKey,
      };
    },

    /** The organisation's connection row, created empty (not connected) when absent. */
    async ensure(organisationId: number, now: string): Promise<void> {
      await db
        .insertInto('organisationPaymentAccounts')
        .values({
          organisationId,
          connectStatus: 'not_connected',
          chargesEnabled: false,
          payoutsEnabled: false,
          detailsSubmitted: false,
          currentlyDue: '[]',
          pendingVerification: '[]',
          connectionKey: newConnectionKey(organisationId),
          createdAt: now,
          updatedAt: now,
        })
        .onConflict((oc) => oc.column('organisationId').doNothing())
        .execute();
    },

    /**
     * Stores the account created with `connectionKey`, unless a disconnect
     * replaced the key meanwhile; answers whether it stored it.
     */
    async attach(organisationId: number, connectionKey: string, account: ProviderAccount, now: string) {
      const result = await db
        .updateTable('organisationPaymentAccounts')
        .set(accountColumns(account, now))
        .where('organisationId', '=', organisationId)
        .where('connectionKey', '=', connectionKey)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Stores a fresh read of the account, unless it was disconnected meanwhile. */
    async sync(organisationId: number, account: ProviderAccount, now: string): Promise<void> {
      await db
        .updateTable('organisationPaymentAccounts')
        .set(accountColumns(account, now))
        .where('organisationId', '=', organisationId)
        .where('providerAccountId', '=', account.id)
        .execute();
    },

    /**
     * Records a provider event as received; false when it already was (a redelivery or a
     * replay), on any instance: the event id is the table's key.
     */
    async claimEvent(event: { id: string; type: string; accountId: string | null }, now: string) {
      const claimed = await db
        .insertInto('paymentEvents')
        .values({ eventId: event.id, eventType: event.type, accountId: event.accountId, receivedAt: now })
        .onConflict((oc) => oc.column('eventId').doNothing())
        .returning('eventId')
        .executeTakeFirst();
      return claimed !== undefined;
    },

    /** Forgets a claimed event whose handling failed, so the provider's next delivery is handled. */
    async unclaimEvent(eventId: string): Promise<void> {
      await db.deleteFrom('paymentEvents').where('eventId', '=', eventId).execute();
    },

    /** Drops events received before `before`: the provider redelivers for days, not months. */
    async pruneEvents(before: string): Promise<void> {
      await db.deleteFrom('paymentEvents').where('receivedAt', '<', before).execute();
    },

    /** Forgets the account and the connection key; the next connection creates a new account. */
    async disconnect(organisationId: number, now: string): Promise<void> {
      await db
        .updateTable('organisationPaymentAccounts')
        .set({
          providerAccountId: null,
          connectStatus: 'not_connected',
          chargesEnabled: false,
          payoutsEnabled: false,
          detailsSubmitted: false,
          currentlyDue: '[]',
          pendingVerification: '[]',
          disabledReason: null,
          syncedAt: null,
          connectionKey: newConnectionKey(organisationId),
          updatedAt: now,
        })
        .where('organisationId', '=', organisationId)
        .execute();
    },
  };
}
