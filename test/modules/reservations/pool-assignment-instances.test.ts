import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { twoInstances } from '../../helpers/app.js';
import { at, book, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/** Bookers at once, and bookings in all. */
const BOOKERS = 20;
const BOOKINGS = 400;

/**
 * Round robin under load (DECISIONS.md "Teams"): 20 bookers on two instances of one
 * database book 400 different half hours of a pool of 4 equal resources; each booking
 * counts the ones committed before it, so the pool stays within one booking of even.
 */
describe('round robin on two instances', () => {
  let apps: FastifyInstance[];
  let close: () => Promise<void>;
  let owner: OrgOwner;

  before(async () => {
    const both = await twoInstances();
    apps = [both.first, both.second];
    close = both.close;
    owner = await ownerWithOrganisation(both.first, { timezone: 'UTC' });
  });
  after(() => close());

  test('a pool of 4 stays within one booking of even after 400 bookings', async () => {
    const type = await createType(apps[0]!, owner, {
      bookingMode: 'POOL',
      minBookingDuration: 30,
      assignment: 'round_robin',
    } as Record<string, unknown>);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++)
      ids.push((await createResource(apps[0]!, owner, { name: `Host ${i}`, resourceTypeId: type.id })).id);
    const base = futureMonday();
    let next = 0;
    const booked: number[] = [];
    const booker = async (n: number) => {
      while (next < BOOKINGS) {
        const k = next++;
        const slot = { startTime: at(base, 0, k * 30), endTime: at(base, 0, k * 30 + 30) };
        const answer = expectStatus(
          await book(apps[n % 2]!, owner, { resourceTypeId: type.id, ...slot }),
          201,
        );
        booked.push(answer.resourceId);
      }
    };
    await Promise.all(Array.from({ length: BOOKERS }, (_, n) => booker(n)));
    const counts = ids.map((id) => booked.filter((b) => b === id).length);
    assert.equal(booked.length, BOOKINGS);
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, JSON.stringify(counts));
  });
});
