// The pages' words for a refused field (frontend/src/api/errors.ts): every rule the API's 400
// can name, and every refusal the booking page can meet from the real service, comes out in
// words, never as the validator's own text; and the page's input limits are the service's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '../../frontend/src/api/client.js';
import {
  answerWords,
  detailText,
  type FieldDetail,
  fieldErrors,
  fieldWords,
  otherFieldErrors,
} from '../../frontend/src/api/errors.js';
import { LIMITS } from '../../frontend/src/lib/booking.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { at, customer, futureMonday } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { as } from '../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';

/** Text only a validator writes: none of it may reach a page. */
const RAW = [/expected/i, /received/i, /<=|>=|<|>/, /invalid input/i, /too (big|small):/i, /\bundefined\b/];

function assertWords(words: string, raw?: string) {
  for (const pattern of RAW) assert.doesNotMatch(words, pattern, `"${words}" holds validator text`);
  if (raw) assert.ok(!words.includes(raw), `"${words}" repeats the validator's "${raw}"`);
  assert.match(words, /^[A-Z"].*[.]$/, `"${words}" is a sentence`);
}

/** Zod's issues as the API's details carry them, with Zod's own messages. */
const ISSUES: FieldDetail[] = [
  {
    path: 'body.customer.name',
    code: 'too_big',
    origin: 'string',
    maximum: 200,
    inclusive: true,
    message: 'Too big: expected string to have <=200 characters',
  },
  {
    path: 'body.notes',
    code: 'too_big',
    origin: 'string',
    maximum: 2000,
    inclusive: true,
    message: 'Too big: expected string to have <=2000 characters',
  },
  {
    path: 'body.recurrence',
    code: 'too_big',
    origin: 'array',
    maximum: 50,
    inclusive: true,
    message: 'Too big: expected array to have <=50 items',
  },
  {
    path: 'body.holdSeconds',
    code: 'too_big',
    origin: 'number',
    maximum: 1800,
    inclusive: true,
    message: 'Too big: expected number to be <=1800',
  },
  {
    path: 'body.priceAmount',
    code: 'too_small',
    origin: 'number',
    minimum: 0,
    inclusive: false,
    message: 'Too small: expected number to be >0',
  },
  {
    path: 'body.customer.name',
    code: 'too_small',
    origin: 'string',
    minimum: 1,
    inclusive: true,
    message: 'Too small: expected string to have >=1 characters',
  },
  {
    path: 'body.password',
    code: 'too_small',
    origin: 'string',
    minimum: 12,
    inclusive: true,
    message: 'Too small: expected string to have >=12 characters',
  },
  {
    path: 'body.customer.email',
    code: 'invalid_type',
    message: 'Invalid input: expected string, received undefined',
  },
  {
    path: 'body.startTime',
    code: 'invalid_type',
    message: 'Invalid input: expected string, received number',
  },
  { path: 'body.customer.email', code: 'invalid_format', format: 'email', message: 'Invalid email address' },
  { path: 'body.website', code: 'invalid_format', format: 'url', message: 'Invalid URL' },
  {
    path: 'body.startTime',
    code: 'invalid_format',
    format: 'datetime',
    message: 'must be an ISO 8601 date-time with a zone',
  },
  {
    path: 'body.schedulePolicy.operatingHours.0.openTime',
    code: 'invalid_format',
    format: 'regex',
    message: 'Invalid string: must match pattern /^([01]\\d|2[0-3]):[0-5]\\d$/',
  },
  {
    path: 'body.thing',
    code: 'invalid_format',
    format: 'regex',
    message: 'Invalid string: must match pattern /x/',
  },
  { path: 'body.severity', code: 'invalid_value', message: 'Invalid option: expected one of "error"|"warn"' },
  { path: 'body.target', code: 'invalid_union', message: 'Invalid input' },
  { path: 'body', code: 'unrecognized_keys', message: 'unknown field(s): extra' },
  {
    path: 'body.schedulePolicy.operatingHours.0.closeTime',
    code: 'custom',
    message: 'closeTime 08:00 must be after openTime 09:00',
  },
  {
    path: 'body.schedulePolicy.shiftSchedule.1.slots.2',
    code: 'custom',
    message: 'slot 09:00-12:00 overlaps slot 0 (10:00-11:00) on dayOfWeek 1',
  },
  { path: 'body.whatever', code: 'custom', message: 'some check the table does not know (received 3 > 2)' },
  { path: 'body.customer.hairLength', message: 'is required by this resource type' },
  { path: 'body.customer.answers.allergies', message: 'is required by this resource type' },
  { path: 'body.endTime', message: 'must be after startTime' },
  { path: 'body.thing', code: 'a_code_from_a_later_zod', message: 'Expected something, received another' },
  { path: 'query.to', code: 'custom', message: 'range must be at most 62 days' },
];

describe('refused fields in words', () => {
  test('every rule a detail can name comes out in words, never in the validator’s', () => {
    for (const detail of ISSUES) {
      assertWords(fieldWords(detail), detail.message);
      assertWords(detailText(detail), detail.message);
    }
  });

  test('the words carry the bound, by what it measures', () => {
    const [name, notes, recurrence, hold, price] = ISSUES;
    assert.equal(fieldWords(name!), 'Use at most 200 characters.');
    assert.equal(fieldWords(notes!), 'Use at most 2,000 characters.');
    assert.equal(detailText(notes!), 'Notes: Use at most 2,000 characters.');
    assert.equal(fieldWords(recurrence!), 'Choose at most 50.');
    assert.equal(fieldWords(hold!), 'Enter 1,800 or less.');
    assert.equal(fieldWords(price!), 'Enter more than 0.');
    assert.equal(
      fieldWords({ path: 'body.schedulePolicy.operatingHours.3.closeTime', code: 'custom', message: 'x' }),
      'The closing time must be after the opening time.',
    );
    assert.equal(
      fieldWords({ path: 'body.customer.email', code: 'invalid_type', message: 'x' }),
      'Enter your email address.',
    );
  });

  test('a field holding text is never asked to be filled in', () => {
    const missing = { path: 'body.customer.hairLength', message: 'is required by this resource type' };
    assert.equal(fieldWords(missing), 'This is required.');
    assert.equal(fieldWords(missing, true), 'This is not accepted. Please check it.');
    const blank = ISSUES[5]!;
    assert.equal(fieldWords(blank), 'Enter your name.');
    assertWords(fieldWords(blank, true), blank.message);
  });

  test('an answer to a booking question is worded by its kind', () => {
    const detail = { path: 'body.customer.answers.q', message: 'must be a valid email address' };
    assert.equal(answerWords(detail, 'email', true), 'Enter an email address like name@example.com.');
    assert.equal(answerWords(detail, 'text', false), 'Please answer this question.');
    assert.equal(answerWords(detail, 'checkbox', false), 'Please tick this box to continue.');
    assert.equal(answerWords(detail, 'select', true), 'Choose one of the options.');
    const long = { ...ISSUES[1]!, path: 'body.customer.answers.q' };
    assert.equal(answerWords(long, 'textarea', true), 'Use at most 2,000 characters.');
    for (const kind of ['text', 'textarea', 'email', 'phone', 'select', 'checkbox', 'unknown'])
      for (const answered of [true, false]) assertWords(answerWords(detail, kind, answered), detail.message);
  });

  test('a refusal puts its fields on the form by name, and lists the others with their labels', () => {
    const error = new ApiError(400, 'VALIDATION_FAILED', 'Invalid body: ...', [ISSUES[0]!, ISSUES[1]!]);
    assert.deepEqual(fieldErrors(error), {
      'customer.name': 'Use at most 200 characters.',
      notes: 'Use at most 2,000 characters.',
    });
    assert.deepEqual(otherFieldErrors(error, ['customer.name']), ['Notes: Use at most 2,000 characters.']);
  });
});

describe('the booking page against the service', () => {
  let t: TestApp;
  let owner: OrgOwner;
  const slug = `words-${process.pid}`;
  let resourceId: number;
  const monday = futureMonday();
  const slot = { startTime: at(monday, 10), endTime: at(monday, 11) };

  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { name: 'Words', slug });
    const type = await createType(t.app, owner, {
      name: 'Fitting',
      minBookingDuration: 60,
      customerInfoFields: ['hairLength'],
    });
    resourceId = (await createResource(t.app, owner, { name: 'Chair', resourceTypeId: type.id })).id;
  });
  after(() => t?.close());

  /** The details of a refused public booking, the way the page sends it. */
  async function refused(body: Record<string, unknown>, path = 'reservations') {
    const r = await t.app.inject({
      method: 'POST',
      url: `/api/public/organisations/${slug}/${path}`,
      payload: { resourceId, ...slot, ...body },
    });
    assert.equal(r.statusCode, 400, r.body);
    const { error } = r.json() as { error: { code: string; message: string; details: FieldDetail[] } };
    assert.equal(error.code, 'VALIDATION_FAILED');
    return error.details;
  }

  const full = { ...customer, hairLength: 'short' };

  test("each input's limit on the page is the service's", async () => {
    for (const [field, limit, body] of [
      ['customer.name', LIMITS.name, { customer: { ...full, name: 'n'.repeat(LIMITS.name + 1) } }],
      ['customer.phone', LIMITS.phone, { customer: { ...full, phone: '1'.repeat(LIMITS.phone + 1) } }],
      ['notes', LIMITS.notes, { customer: full, notes: 'x'.repeat(LIMITS.notes + 1) }],
    ] as const) {
      for (const path of ['reservations', 'holds']) {
        const details = await refused(body, path);
        const detail = details.find((d) => d.path === `body.${field}`);
        assert.ok(detail, `${field} refused: ${JSON.stringify(details)}`);
        assert.equal(detail.code, 'too_big');
        assert.equal(detail.maximum, limit, field);
        assertWords(fieldWords(detail), detail.message);
      }
    }
    // A type's own field is refused beyond its limit; holding text, it is never "required".
    const field = await refused({ customer: { ...full, hairLength: 'h'.repeat(LIMITS.field + 1) } });
    const hair = field.find((d) => d.path === 'body.customer.hairLength');
    assert.ok(hair, JSON.stringify(field));
    assert.notEqual(fieldWords(hair, true), 'This is required.');
    assertWords(fieldWords(hair, true), hair.message);
    // An email is refused beyond its limit too (as too long, or as no address).
    const long = await refused({ customer: { ...full, email: `${'e'.repeat(LIMITS.email)}@example.test` } });
    assert.ok(long.some((d) => d.path === 'body.customer.email'));
  });

  test('every refusal the details form can meet is in words beside its field', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ customer: { email: customer.email, hairLength: 'a' } }, 'customer.name', 'Enter your name.'],
      [{ customer: { name: 'Ada', hairLength: 'a' } }, 'customer.email', 'Enter your email address.'],
      [
        { customer: { ...full, email: 'ada@example' } },
        'customer.email',
        'Enter an email address like name@example.com.',
      ],
      [{ customer: { ...full, name: 'two\nlines' } }, 'customer.name', 'Keep this on one line.'],
      [{ customer: customer }, 'customer.hairLength', 'This is required.'],
      [{ customer: full, notes: 'n'.repeat(2001) }, 'notes', 'Use at most 2,000 characters.'],
      [
        { customer: full, startTime: '2001-01-01T10:00:00Z', endTime: '2001-01-01T11:00:00Z' },
        'startTime',
        'This time has already passed. Please pick a later one.',
      ],
      [{ customer: full, endTime: slot.startTime }, 'endTime', 'The end must be after the start.'],
    ];
    for (const [body, field, words] of cases) {
      const details = await refused(body);
      const error = new ApiError(400, 'VALIDATION_FAILED', 'refused', details);
      assert.equal(fieldErrors(error)[field], words, `${field}: ${JSON.stringify(details)}`);
      for (const detail of details) assertWords(fieldWords(detail), detail.message);
    }
  });

  test("the console's schedule refusals are in words too", async () => {
    const r = await as(t.app, owner).patch(`/api/organisations/${owner.organisationId}`, {
      schedulePolicy: { operatingHours: [{ dayOfWeek: 1, openTime: '09:00', closeTime: '08:00' }] },
    });
    assert.equal(r.statusCode, 400, r.body);
    const details = r.json().error.details as FieldDetail[];
    const closing = details.find((d) => d.path?.endsWith('closeTime'));
    assert.ok(closing, JSON.stringify(details));
    assert.equal(fieldWords(closing), 'The closing time must be after the opening time.');
  });
});
