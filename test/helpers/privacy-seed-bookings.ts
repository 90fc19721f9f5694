// The privacy seed's organisation side (privacy-seed.ts): organisations, invitations, resources,
// reservations and the waitlist.
import { at, futureMonday } from './booking.js';
import { client, expectStatus } from './http.js';
import type { Seeding } from './privacy-seed-people.js';

/** Organisations: the person owns one with a colleague (to be succeeded) and, alone, a second one. */
export async function seedOrganisations(s: Seeding) {
  const { app, person, colleague, P, C, N } = s;
  await app.services.auth.updateUserByEmail(person.email, { plan: 'ENTERPRISE' });
  const organisation = await P('POST', '/api/organisations', { name: 'Acme Rooms', email: 'desk@acme.test' });
  await P('POST', `/api/organisations/${organisation.id}/users/assign`, {
    userId: colleague.id,
    role: 'ADMIN',
  });
  await C('POST', `/api/organisations/${organisation.id}/invitation/accept`, undefined, 200);
  // Invitations: one the person sent (by email) and one to the person (by email too).
  await P('POST', `/api/organisations/${organisation.id}/users`, { email: 'guest@example.test' });
  const neighbourOrganisation = await N('POST', '/api/organisations', { name: 'Street Shop' });
  await N('POST', `/api/organisations/${neighbourOrganisation.id}/users`, { email: person.email });
  const solo = await P('POST', '/api/organisations', {
    name: 'Solo Studio',
    email: person.email,
    phone: '+44 1',
  });
  return { organisation, solo };
}

/** Resources and reservations in the shared organisation (the person's active one), and a waitlist entry. */
export async function seedBookings(s: Seeding) {
  const { app, person, P, C } = s;
  const type = await P('POST', '/api/resource-types', {
    name: 'Room',
    priceAmount: 1500,
    priceCurrency: 'eur',
    pricingEnabled: true,
  });
  const resource = await P('POST', '/api/resources', {
    name: 'Room 1',
    resourceTypeId: type.id,
    managedById: person.id,
  });
  const monday = futureMonday();
  // Sent with an Idempotency-Key: the stored answer (naming the customer) is the person's too.
  const booked = await client(app, person).request(
    'POST',
    '/api/reservations',
    {
      resourceId: resource.id,
      startTime: at(monday, 9),
      endTime: at(monday, 10),
      customer: { name: person.name, email: person.email, phone: '+44 20 7946 0000' },
      notes: `Booked by ${person.name}`,
    },
    { 'idempotency-key': `seed-${person.id}` },
  );
  const ownBooking = expectStatus(booked, 201);
  const otherBooking = await P('POST', '/api/reservations', {
    resourceId: resource.id,
    startTime: at(monday, 11),
    endTime: at(monday, 12),
    customer: { name: 'Grace Hopper', email: 'grace@example.test', phone: '+1 555 0100' },
    notes: 'Window seat',
  });
  // The waitlist: the person waits for a class the colleague booked full.
  const classType = await P('POST', '/api/resource-types', { name: 'Class', waitlistEnabled: true });
  const classRoom = await P('POST', '/api/resources', { name: 'Class 1', resourceTypeId: classType.id });
  const full = { resourceId: classRoom.id, startTime: at(monday, 15), endTime: at(monday, 16) };
  await C('POST', '/api/reservations', {
    ...full,
    customer: { name: 'Grace Hopper', email: 'grace@example.test' },
  });
  await P('POST', '/api/reservations/waitlist', {
    ...full,
    customer: { name: person.name, email: person.email },
  });
  return { resource, ownBooking, otherBooking };
}
