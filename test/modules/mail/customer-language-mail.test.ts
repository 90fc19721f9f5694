// Customer mails in the customer's language and zone (DECISIONS.md "Booking everywhere"):
// customer.locale, else the organisation's defaultLocale, else en; times in customer.timeZone,
// else the organisation's, named beside them, in the mail and its invitation. Through HTTP, the
// real outbox and mail drain, and SMTP to the bundled catcher.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CaughtMessage, MailCatcher } from '../../../tools/emulators/mail/server.js';
import { startMailCatcher } from '../../../tools/emulators/mail/server.js';
import { createTestApp, type TestApp, uniqueEmail } from '../../helpers/app.js';
import { at, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/** A line of a mail's text, exactly. */
const line = (text: string) => new RegExp(`^${text.replace(/[()+.]/g, '\\$&')}$`, 'm');

/** A day as `Intl` writes it in `locale` and `timeZone`: `Montag, 14. Dezember 2026`. */
const dayIn = (iso: string, locale: string, timeZone: string, weekday = true) =>
  new Intl.DateTimeFormat(locale, {
    ...(weekday ? { weekday: 'long' } : {}),
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone,
  }).format(new Date(iso));
/** A clock time in `timeZone`: `09:00`. */
const clockIn = (iso: string, timeZone: string) =>
  new Intl.DateTimeFormat('de', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone }).format(
    new Date(iso),
  );

describe("customer mails in the customer's language and zone", () => {
  let t: TestApp;
  let catcher: MailCatcher;
  let owner: OrgOwner;
  let room: { id: number };
  let paidRoom: { id: number };
  let classRoom: { id: number };
  const mon = futureMonday();
  let hour = 8;
  const nextSlot = (resourceId = room.id) => {
    const start = hour++;
    return { resourceId, startTime: at(mon, start), endTime: at(mon, start + 1) };
  };
  const customerOf = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    email: uniqueEmail(
      name
        .normalize('NFD')
        .replace(/[^A-Za-z]/g, '')
        .toLowerCase(),
    ),
    ...extra,
  });
  const setDefaultLocale = async (defaultLocale: string) =>
    expectStatus(
      await as(t.app, owner).patch(`/api/organisations/${owner.organisationId}`, { defaultLocale }),
      200,
    );

  before(async () => {
    catcher = await startMailCatcher();
    t = await createTestApp({ SMTP_URL: catcher.smtpUrl });
    owner = await ownerWithOrganisation(t.app, { name: 'Salon', timezone: 'Europe/Berlin' });
    const type = await createType(t.app, owner, { name: 'Haarschnitt' });
    room = await createResource(t.app, owner, { name: 'Stuhl', resourceTypeId: type.id });
    const paid = await createType(t.app, owner, {
      name: 'Massage',
      pricingEnabled: true,
      priceAmount: 2550,
      priceCurrency: 'eur',
    });
    paidRoom = await createResource(t.app, owner, { name: 'Liege', resourceTypeId: paid.id });
    const waited = await createType(t.app, owner, { name: 'Kurs', waitlistEnabled: true });
    classRoom = await createResource(t.app, owner, { name: 'Saal', resourceTypeId: waited.id });
  });
  after(async () => {
    await t?.close();
    await catcher?.close();
  });

  /** Every mail sent so far to `email`, oldest first, once the drain has sent what is due. */
  async function mailsTo(email: string): Promise<CaughtMessage[]> {
    await t.app.services.mail.drain();
    return (await catcher.messages()).filter((message) => message.envelope.to.includes(email));
  }
  const book = async (slot: Record<string, unknown>, customer: Record<string, unknown>) =>
    expectStatus(await as(t.app, owner).post('/api/reservations', { ...slot, customer }), 201);

  test("a de customer's confirmation is German, its times German-formatted in their zone, which it names", async () => {
    const customer = customerOf('Greta', { locale: 'de', timeZone: 'America/New_York' });
    const booked = await book(nextSlot(paidRoom.id), customer);
    const [mail, ...more] = await mailsTo(customer.email);
    assert.deepEqual(more, []);
    const zone = 'America/New_York';
    assert.equal(
      mail?.subject,
      `Salon: Ihre Buchung am ${dayIn(booked.startTime, 'de', zone, false)} ist bestätigt`,
    );
    const when = `${dayIn(booked.startTime, 'de', zone)}, ${clockIn(booked.startTime, zone)}–${clockIn(booked.endTime, zone)} (America/New_York)`;
    assert.match(when, /^[A-Z][a-z]+, \d{1,2}\. [A-Z]\S+ \d{4}, \d\d:\d\d–\d\d:\d\d \(America\/New_York\)$/);
    const text = String(mail?.text);
    assert.match(text, line('Ihre Buchung ist bestätigt'));
    assert.match(text, line('Hallo Greta,'));
    assert.match(text, line(`Wann: ${when}`));
    assert.match(text, line('Leistung: Massage'));
    // Intl puts a no-break space before the euro sign in German.
    assert.match(text, /^Preis: 25,50\u00a0€$/m);
    assert.match(text, line(`Buchungsnummer: ${booked.reference}`));
    assert.match(String(mail?.html), /<html lang="de">/);
    const invitation = mail?.attachments.find((part) => part.contentType.startsWith('text/calendar'));
    const ics = String(invitation?.content).replace(/\r\n[ \t]/g, '');
    assert.match(ics, /^SUMMARY:Massage bei Salon\r?$/m);
    assert.match(ics, /^DESCRIPTION:Buchung \w+ bei Salon\\nWann: .*\(America\/New_York\)\r?$/m);
    assert.match(ics, /^DTSTART:\d{8}T\d{6}Z\r?$/m, 'the instants in UTC');

    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 200);
    const cancelled = (await mailsTo(customer.email))[1];
    assert.match(String(cancelled?.subject), /^Salon: Ihre Buchung am .* ist storniert$/);
    assert.match(
      String(cancelled?.text),
      line('Ihre Buchung bei Salon ist storniert; der Termin ist wieder frei.'),
    );
  });

  test("without a locale of the customer's, the organisation's defaultLocale and zone; then en", async () => {
    await setDefaultLocale('fr');
    try {
      const plain = customerOf('Pierre');
      const booked = await book(nextSlot(), plain);
      const [mail] = await mailsTo(plain.email);
      const zone = 'Europe/Berlin';
      assert.equal(
        mail?.subject,
        `Salon : votre réservation du ${dayIn(booked.startTime, 'fr', zone, false)} est confirmée`,
      );
      assert.match(
        String(mail?.text),
        line(
          `Quand: ${dayIn(booked.startTime, 'fr', zone)}, ${clockIn(booked.startTime, zone)}–${clockIn(booked.endTime, zone)} (Europe/Berlin)`,
        ),
      );
      // The customer's own language comes first.
      const spanish = customerOf('Lucía', { locale: 'es' });
      await book(nextSlot(), spanish);
      const [hers] = await mailsTo(spanish.email);
      assert.match(String(hers?.subject), /^Salon: su reserva del .* está confirmada$/);
      assert.match(String(hers?.text), line('Hola, Lucía:'));
    } finally {
      await setDefaultLocale('en');
    }
    const english = customerOf('Ed', { timeZone: 'Asia/Tokyo' });
    const booked = await book(nextSlot(), english);
    const [mail] = await mailsTo(english.email);
    assert.match(String(mail?.subject), /^Salon: your booking on .* is confirmed$/);
    assert.match(String(mail?.text), line('Your booking is confirmed'));
    assert.match(
      String(mail?.text),
      line(
        `When: ${dayIn(booked.startTime, 'en-GB', 'Asia/Tokyo').replace(',', '')}, ${clockIn(booked.startTime, 'Asia/Tokyo')}–${clockIn(booked.endTime, 'Asia/Tokyo')} (Asia/Tokyo)`,
      ),
    );
  });

  test("a waitlist offer is in the waiting customer's language, its deadline in their zone", async () => {
    const slot = nextSlot(classRoom.id);
    const first = await book(slot, customerOf('Erste'));
    const waiter = customerOf('Marta', { locale: 'es', timeZone: 'America/Mexico_City' });
    expectStatus(
      await as(t.app, owner).post('/api/reservations/waitlist', { ...slot, customer: waiter }),
      201,
    );
    expectStatus(await as(t.app, owner).post(`/api/reservations/${first.id}/cancel`), 200);
    await t.app.services.waitlist.processOffers();
    const [offer] = await mailsTo(waiter.email);
    assert.match(String(offer?.subject), /^Salon: un horario que esperaba está libre el /);
    assert.match(String(offer?.text), /^Confirmar antes del: .*, \d\d:\d\d \(America\/Mexico_City\)$/m);
  });
});
