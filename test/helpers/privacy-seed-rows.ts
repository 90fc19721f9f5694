// The rows of the privacy seed (privacy-seed.ts) written straight to the database: a sent mail, a
// webhook delivery, and calendar sync state, whose own flows need an SMTP relay, a dispatcher
// or the provider emulators.
import { randomBytes } from 'node:crypto';
import { sha256 } from '../../src/lib/crypto.js';
import type { Seeding } from './privacy-seed-people.js';

/** Mail and webhook rows naming the person, written directly. */
export async function seedMailAndWebhooks(
  s: Seeding,
  organisationId: number,
  ownBooking: Record<string, unknown>,
  now: string,
) {
  const { db, person, P } = s;
  // Mail: a message sent to the person, written directly (sending needs an SMTP relay).
  await db.kysely
    .insertInto('mailMessages')
    .values({
      dedupeKey: `seed-${randomBytes(4).toString('hex')}/booking_confirmed/${person.email}`,
      eventId: null,
      kind: 'booking_confirmed',
      organisationId,
      recipient: person.email,
      subject: 'Your booking at Acme Rooms',
      messageId: `<seed-${randomBytes(4).toString('hex')}@acme.test>`,
      status: 'sent',
      attempts: 1,
      lastError: null,
      claimedAt: now,
      sentAt: now,
      createdAt: now,
    })
    .execute();
  // Webhooks: the organisation's endpoint, and a delivery of the person's booking event written
  // directly (the dispatcher would send it to the endpoint's address).
  const endpoint = await P('POST', `/api/organisations/${organisationId}/webhooks`, {
    url: 'https://93.184.216.34/hooks',
    events: ['reservation.created'],
  });
  await db.kysely
    .insertInto('webhookDeliveries')
    .values({
      endpointId: endpoint.id,
      organisationId,
      eventId: `seed-${randomBytes(4).toString('hex')}`,
      eventType: 'reservation.created',
      userId: person.id,
      payload: JSON.stringify({ type: 'reservation.created', data: ownBooking }),
      status: 'failed',
      nextAttemptAt: null,
      retryUntil: now,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
}

/** Calendar sync rows of the person (the module's own flows need the provider emulators); answers the sealed token. */
export async function seedCalendarSync(s: Seeding, workId: number, now: string): Promise<string> {
  const { db, person } = s;
  const sealedToken = `sealed-${randomBytes(8).toString('hex')}`;
  const connection = await db.kysely
    .insertInto('calendarSyncConnections')
    .values({
      userId: person.id,
      provider: 'calendar_provider_a',
      state: 'connected',
      accessTokenEnc: sealedToken,
      refreshTokenEnc: `${sealedToken}-refresh`,
      accessTokenExpiresAt: now,
      scope: 'calendar',
      externalCalendars: JSON.stringify([{ externalId: person.email, name: person.name, primary: true }]),
      lastErrorCode: null,
      lastErrorMessage: null,
      lastErrorAt: null,
      connectedAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const mapping = await db.kysely
    .insertInto('calendarSyncMappings')
    .values({
      userId: person.id,
      provider: 'calendar_provider_a',
      externalCalendarId: person.email,
      localCalendarId: workId,
      localName: 'Work',
      bidirectionalSync: true,
      importReminders: false,
      triggerAutomationRules: false,
      selectedRuleIds: null,
      state: 'active',
      syncToken: 'cursor-1',
      syncWindowEnd: null,
      lastSyncedAt: now,
      lastPolledAt: null,
      channelId: `channel-${randomBytes(4).toString('hex')}`,
      channelResourceId: null,
      channelTokenHash: sha256('channel-token'),
      channelExpiresAt: null,
      leaseOwner: null,
      leaseUntil: null,
      createdAt: now,
      updatedAt: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.kysely
    .insertInto('calendarSyncStates')
    .values({
      stateHash: sha256(randomBytes(8).toString('hex')),
      userId: person.id,
      provider: 'calendar_provider_b',
      codeVerifierEnc: `${sealedToken}-verifier`,
      expiresAt: now,
      usedAt: null,
      createdAt: now,
    })
    .execute();
  await db.kysely
    .insertInto('calendarSyncExceptions')
    .values({
      mappingId: mapping.id,
      seriesExternalId: 's1',
      instanceExternalId: 's1_1',
      exdate: '20250609T090000Z',
      createdAt: now,
    })
    .execute();
  await db.kysely
    .insertInto('calendarSyncConflicts')
    .values({
      userId: person.id,
      mappingId: mapping.id,
      eventId: null,
      externalId: 'x1',
      localChange: 'update',
      resolution: 'provider_wins',
      createdAt: now,
    })
    .execute();
  void connection;
  return sealedToken;
}
