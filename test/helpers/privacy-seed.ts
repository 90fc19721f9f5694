// The privacy tests' seed: a person with data in every module that stores any, beside two
// other people whose data must survive the person's erasure untouched. Each domain's part is in
// a privacy-seed-*.ts file of its own.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/database.js';
import { cookieValue, type SignedInUser } from './app.js';
import type { Tokens } from './oauth.js';
import { seedAgents, seedSecondFactors } from './privacy-seed-access.js';
import { seedBookings, seedOrganisations } from './privacy-seed-bookings.js';
import { type Seeding, seedPeople } from './privacy-seed-people.js';
import { seedCalendars, seedGroups, seedHousehold, seedTasks } from './privacy-seed-personal.js';
import { seedPlatformReports, seedPrivacy } from './privacy-seed-records.js';
import { seedCalendarSync, seedMailAndWebhooks } from './privacy-seed-rows.js';

export interface Seeded {
  person: SignedInUser & { name: string };
  colleague: SignedInUser & { name: string };
  neighbour: SignedInUser & { name: string };
  secrets: {
    apiKey: string;
    agentKey: string;
    oauth: Tokens;
    oauthClientId: string;
    refreshCookie: string;
    csrfCookie: string;
    passwordHash: string;
    sealedToken: string;
    secondFactors: Awaited<ReturnType<typeof seedSecondFactors>>;
  };
  ids: {
    organisationId: number;
    soloOrganisationId: number;
    ownBookingId: number;
    otherBookingId: number;
    personGroupId: number;
    neighbourGroupId: number;
    sharedItemOfNeighbourId: number;
  };
  /** Texts only the other users wrote: never in the person's export, still there after erasure. */
  othersTexts: string[];
}

/**
 * A person with data in every module that stores any, and two other people sharing
 * an organisation and people groups with them (whose data must survive untouched).
 */
export async function seedEverything(app: FastifyInstance, db: Db): Promise<Seeded> {
  const s = await seedPeople(app, db);
  const { person, colleague, neighbour, P } = s;

  // Auth: an API key; the refresh cookie of the registration.
  const apiKey = (await P('POST', '/api/auth/api-keys', { label: 'script' })).key as string;

  const { organisation, solo } = await seedOrganisations(s);
  const { resource, ownBooking, otherBooking } = await seedBookings(s);
  const work = await seedCalendars(s, resource.id);
  const { personGroup, neighbourGroup } = await seedGroups(s, work.id);
  await seedTasks(s);
  const neighbourItem = await seedHousehold(s, neighbourGroup.id);
  const { agentKey, oauthGrant } = await seedAgents(s);

  // Calendar sync: written directly (the module's own flows need the provider emulators).
  const now = new Date().toISOString();
  await seedMailAndWebhooks(s, organisation.id, ownBooking, now);
  const sealedToken = await seedCalendarSync(s, work.id, now);
  await seedPrivacy(s);
  await seedPlatformReports(s);
  const othersTexts = await seedOthersData(s, neighbourGroup.id);

  // Last: with two-factor on, a password alone no longer signs the person in.
  const secondFactors = await seedSecondFactors(app, person);
  const passwordHash = (
    await db.kysely
      .selectFrom('users')
      .select('passwordHash')
      .where('id', '=', person.id)
      .executeTakeFirstOrThrow()
  ).passwordHash;
  return {
    person,
    colleague,
    neighbour,
    secrets: {
      apiKey,
      agentKey,
      oauth: oauthGrant.tokens,
      oauthClientId: oauthGrant.client.client_id,
      refreshCookie: cookieValue(person.response, 'refresh_token')!,
      csrfCookie: cookieValue(person.response, 'csrf_token')!,
      passwordHash,
      sealedToken,
      secondFactors,
    },
    ids: {
      organisationId: organisation.id,
      soloOrganisationId: solo.id,
      ownBookingId: ownBooking.id,
      otherBookingId: otherBooking.id,
      personGroupId: personGroup.id,
      neighbourGroupId: neighbourGroup.id,
      sharedItemOfNeighbourId: neighbourItem.id,
    },
    othersTexts,
  };
}

/** The other people's own data, which the person can partly see but which is theirs. */
async function seedOthersData(s: Seeding, neighbourGroupId: number): Promise<string[]> {
  const { C, N } = s;
  const othersTexts = [
    `Colleague task ${randomBytes(3).toString('hex')}`,
    `Neighbour event ${randomBytes(3).toString('hex')}`,
  ];
  await C('POST', '/api/tasks', { title: othersTexts[0] });
  const neighbourCalendar = await N('POST', '/api/calendars', { name: 'Garden' });
  await N('POST', `/api/calendars/${neighbourCalendar.id}/events`, {
    title: othersTexts[1],
    startTime: '2025-06-02T09:00:00Z',
    endTime: '2025-06-02T10:00:00Z',
  });
  await N(
    'POST',
    `/api/user-groups/${neighbourGroupId}/calendars/attach`,
    { calendarIds: [neighbourCalendar.id] },
    200,
  );
  return othersTexts;
}
