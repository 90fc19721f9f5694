import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createTestDatabase } from '../../helpers/app.js';
import type { Question } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { agentClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/** Five questions of every kind but textarea, as a console would write them. */
const QUESTIONS: Question[] = [
  { id: 'company', label: 'Company', kind: 'text', required: true },
  { id: 'invoiceEmail', label: 'Invoice email', kind: 'email' },
  { id: 'mobile', label: 'Mobile', kind: 'phone', required: false },
  { id: 'room_size', label: 'Room size', kind: 'select', required: true, options: ['Small', 'Large'] },
  { id: 'terms', label: 'I accept the house rules', kind: 'checkbox', required: true },
];
/** The same as stored and read: `required` always there. */
const STORED = QUESTIONS.map((q) => ({ required: false, ...q }));

type ToolResult = { isError?: boolean; structuredContent?: unknown };

/**
 * Booking questions on resource types (DECISIONS.md "Pages people live in"): written and read
 * through REST and MCP from one schema, refused with the field named, and shown on the
 * public type view the booking page reads.
 */
describe('booking questions of a resource type', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let client: Client;
  const slug = `questions-${process.pid}`;

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    owner = await ownerWithOrganisation(app, { slug, timezone: 'UTC' });
    client = await agentClient(app, owner, 'operational_read_write');
  });
  after(async () => {
    await client.close().catch(() => {});
    await app.close();
    await dropDb();
  });

  test('created, read, listed and replaced as a whole; a type without any has []', async () => {
    const plain = await createType(app, owner, { name: 'Plain' });
    assert.deepEqual(plain.questions, []);
    const type = await createType(app, owner, { name: 'Asked', questions: QUESTIONS });
    assert.deepEqual(type.questions, STORED);
    const read = expectStatus(await as(app, owner).get(`/api/resource-types/${type.id}`), 200);
    assert.deepEqual(read.questions, STORED);
    const listed = expectStatus(await as(app, owner).get('/api/resource-types'), 200) as Array<{
      id: number;
      questions: unknown;
    }>;
    assert.deepEqual(listed.find((t) => t.id === type.id)?.questions, STORED);

    const renamed = expectStatus(
      await as(app, owner).patch(`/api/resource-types/${type.id}`, { name: 'Asked again' }),
      200,
    );
    assert.deepEqual(renamed.questions, STORED, 'an update without questions keeps them');
    const replaced = expectStatus(
      await as(app, owner).patch(`/api/resource-types/${type.id}`, {
        questions: [{ id: 'notes2', label: '  Anything else?  ', kind: 'textarea' }],
      }),
      200,
    );
    assert.deepEqual(replaced.questions, [
      { id: 'notes2', label: 'Anything else?', kind: 'textarea', required: false },
    ]);
    const cleared = expectStatus(
      await as(app, owner).patch(`/api/resource-types/${type.id}`, { questions: [] }),
      200,
    );
    assert.deepEqual(cleared.questions, []);
  });

  const refused = async (questions: unknown, path: string, message: RegExp) => {
    const error = expectError(
      await as(app, owner).post('/api/resource-types', { name: 'Refused', questions }),
      400,
      'VALIDATION_FAILED',
    );
    const detail = error.details?.find((d) => d.path === path);
    assert.ok(detail, `no detail at ${path}: ${JSON.stringify(error.details)}`);
    assert.match(detail.message, message);
  };
  const text = (fields: Record<string, unknown> = {}) => ({
    id: 'q',
    label: 'Q',
    kind: 'text' as const,
    ...fields,
  });
  const select = (options: unknown) => ({ id: 'q', label: 'Q', kind: 'select', options });

  test('each rule of a question refuses with the field named, and nothing is written', async () => {
    const before = (expectStatus(await as(app, owner).get('/api/resource-types'), 200) as unknown[]).length;
    await refused([text({ id: '1st' })], 'body.questions.0.id', /field name/);
    await refused([text({ id: 'has space' })], 'body.questions.0.id', /field name/);
    await refused([text(), text({ label: 'Again' })], 'body.questions.1.id', /repeats/);
    await refused([text({ label: 'Two\nlines' })], 'body.questions.0.label', /one line/);
    await refused([text({ label: 'x'.repeat(201) })], 'body.questions.0.label', /200/);
    await refused([text({ label: ' ' })], 'body.questions.0.label', /1/);
    await refused([text({ kind: 'date' })], 'body.questions.0.kind', /./);
    await refused([text({ options: ['a'] })], 'body.questions.0.options', /only accepted for a select/);
    await refused([text({ hint: 'x' })], 'body.questions.0', /hint/);
    await refused([text({ required: 'yes' })], 'body.questions.0.required', /./);
    await refused([select(undefined)], 'body.questions.0.options', /required for a select/);
    await refused([select([])], 'body.questions.0.options', /1/);
    await refused([select(['a', 'a'])], 'body.questions.0.options', /repeat/);
    await refused([select(['a\nb'])], 'body.questions.0.options.0', /one line/);
    await refused([select(Array.from({ length: 51 }, (_, i) => `o${i}`))], 'body.questions.0.options', /50/);
    const eleven = Array.from({ length: 11 }, (_, i) => text({ id: `q${i}` }));
    await refused(eleven, 'body.questions', /10/);
    const after = (expectStatus(await as(app, owner).get('/api/resource-types'), 200) as unknown[]).length;
    assert.equal(after, before, 'no refused type was created');

    const type = await createType(app, owner, { name: 'Kept', questions: [text()] });
    expectError(
      await as(app, owner).patch(`/api/resource-types/${type.id}`, {
        name: 'Changed',
        questions: [select([])],
      }),
      400,
      'VALIDATION_FAILED',
    );
    const read = expectStatus(await as(app, owner).get(`/api/resource-types/${type.id}`), 200);
    assert.deepEqual([read.name, read.questions], ['Kept', [{ ...text(), required: false }]]);
  });

  test('answers is no customerInfoFields name: it is where the answers go', async () => {
    const error = expectError(
      await as(app, owner).post('/api/resource-types', { name: 'Clash', customerInfoFields: ['answers'] }),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(error.details?.[0]?.path, 'body.customerInfoFields');
  });

  test('the public type view the booking page reads carries the questions', async () => {
    const type = await createType(app, owner, { name: 'Public asked', questions: QUESTIONS });
    const resource = await createResource(app, owner, { name: 'Desk', resourceTypeId: type.id });
    const page = expectStatus(
      await app.inject({ method: 'GET', url: `/api/public/organisations/${slug}` }),
      200,
    );
    const shown = (page.resourceTypes as Array<{ id: number; questions: unknown }>).find(
      (t) => t.id === type.id,
    );
    assert.deepEqual(shown?.questions, STORED);
    const { token } = expectStatus(
      await as(app, owner).get(`/api/resources/${resource.id}/public-token`),
      200,
    );
    const byToken = expectStatus(
      await app.inject({ method: 'GET', url: `/api/public/resources/${token}` }),
      200,
    );
    assert.deepEqual(byToken.resourceType.questions, STORED);
  });

  test('MCP: resourceTypes_create and _update take and answer questions, refusing as REST does', async () => {
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<ToolResult>;
    const created = await call('resourceTypes_create', {
      name: 'By agent',
      questions: QUESTIONS.slice(0, 2),
    });
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    const type = created.structuredContent as { id: number; questions: unknown };
    assert.deepEqual(type.questions, STORED.slice(0, 2));
    const updated = await call('resourceTypes_update', {
      resourceTypeId: type.id,
      questions: [select(['Yes', 'No'])],
    });
    assert.deepEqual((updated.structuredContent as { questions: unknown }).questions, [
      { ...select(['Yes', 'No']), required: false },
    ]);
    const bad = await call('resourceTypes_update', {
      resourceTypeId: type.id,
      questions: [select(['a', 'a'])],
    });
    assert.equal(bad.isError, true);
    const error = (bad.structuredContent as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.match(error.message, /questions\.0\.options: must not repeat an option/);
    const read = await call('resourceTypes_get', { resourceTypeId: type.id });
    assert.deepEqual((read.structuredContent as { questions: unknown }).questions, [
      { ...select(['Yes', 'No']), required: false },
    ]);
  });
});
