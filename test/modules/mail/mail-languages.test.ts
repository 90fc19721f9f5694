// Every customer mail renders in every language: its words from the language's catalogue (no
// key, no `{{value}}` left unfilled, no English left in another language's headings), its HTML
// marked with the language; a language the service does not serve falls back to en.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOCALES } from '../../../src/i18n/locales.js';
import type { Branding, MailedReservation } from '../../../src/modules/mail/schemas.js';
import { type BookingTemplate, renderMail } from '../../../src/modules/mail/templates.js';

const TEMPLATES: BookingTemplate[] = [
  'booking_confirmation',
  'booking_payment',
  'booking_reschedule',
  'booking_cancellation',
  'booking_expiry',
  'booking_reminder',
  'waitlist_offer',
];
const branding: Branding = {
  name: 'Studio',
  email: null,
  address: null,
  logoUrl: null,
  color: '#2563eb',
  timezone: 'Europe/Berlin',
};
const reservation = (locale: string | null): MailedReservation => ({
  id: 7,
  reference: 'AB12CD34',
  resourceTypeId: 1,
  status: 'pending_payment',
  startTime: '2027-03-01T13:00:00.000Z',
  endTime: '2027-03-01T14:00:00.000Z',
  customer: { name: 'Kim', email: 'kim@example.test', locale, timeZone: null },
  expiresAt: '2027-02-28T12:00:00.000Z',
  payment: {
    status: 'requires_payment',
    amount: 2500,
    currency: 'eur',
    checkoutUrl: 'https://pay.example.test/c/1',
    expiresAt: '2027-02-28T12:00:00.000Z',
  },
});
const render = (template: BookingTemplate, locale: string | null, defaultLocale?: string) =>
  renderMail({
    template,
    input: {
      branding: { ...branding, ...(defaultLocale ? { defaultLocale } : {}) },
      reservation: reservation(locale),
      serviceName: 'Lesson',
      manageUrl: 'https://frontend.example.test/manage/t',
    },
  });

test('each booking mail in each language: filled, marked, and not the English words', () => {
  for (const template of TEMPLATES) {
    const english = render(template, 'en');
    for (const locale of LOCALES) {
      const mail = render(template, locale);
      const where = `${template} in ${locale}`;
      assert.doesNotMatch(`${mail.subject}\n${mail.text}`, /\{\{|\}\}|\b(details|payment|expiry)\.\w/, where);
      assert.match(mail.html, new RegExp(`<html lang="${locale}">`), where);
      // Times in the organisation's zone (the customer gave none), which they name.
      assert.match(mail.text, /\(Europe\/Berlin\)/, where);
      if (locale !== 'en') {
        assert.notEqual(mail.subject, english.subject, where);
        assert.notEqual(mail.text.split('\n')[0], english.text.split('\n')[0], `${where}: its heading`);
      }
    }
  }
});

test("the language: the customer's, else the organisation's default, else en", () => {
  assert.match(render('booking_confirmation', null, 'de').subject, /ist bestätigt$/);
  assert.match(render('booking_confirmation', 'fr', 'de').subject, /est confirmée$/);
  assert.match(render('booking_confirmation', null).subject, /is confirmed$/);
  // A value from before the catalogues, or a stray one, is no language: the fallback.
  assert.match(render('booking_confirmation', 'pt', 'es').subject, /está confirmada$/);
  assert.match(render('booking_confirmation', 'xx').subject, /is confirmed$/);
});

test('prices by Intl in the language', () => {
  assert.match(render('booking_payment', 'en').text, /^Price: €25\.00$/m);
  assert.match(render('booking_payment', 'de').text, /^Preis: 25,00\u00a0€$/m);
  assert.match(render('booking_payment', 'fr').text, /^Prix: 25,00\u00a0€$/m);
  assert.match(render('booking_payment', 'es').text, /^Precio: 25,00\u00a0€$/m);
});

test('the reminder and its add-to-calendar links in the language', () => {
  const reminder = render('booking_reminder', 'de');
  assert.equal(reminder.subject, 'Studio: Erinnerung an Ihre Buchung am 1. März 2027');
  assert.match(reminder.text, /^Wir erinnern Sie an Ihre Buchung bei Studio, Beginn /m);
  assert.match(
    reminder.text,
    /^Zu Google Kalender hinzufügen: https:\/\/calendar\.google\.com\/calendar\/render\?action=TEMPLATE&text=Lesson%20bei%20Studio&/m,
  );
  assert.match(reminder.text, /^Zu Outlook hinzufügen: https:\/\/outlook\.live\.com\//m);
  assert.match(render('booking_confirmation', 'fr').text, /^Ajouter à Google Agenda: https:/m);
});
