import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { serializerCompiler } from '../../src/http/serialize.js';
import { checkResponsesAgainstSchemas, createTestApp, registerUser, type TestApp } from '../helpers/app.js';

const owner = z.object({ id: z.number().int(), name: z.string() });
const record = z.object({
  id: z.number().int(),
  name: z.string(),
  owner: owner.nullable(),
  members: z.array(owner),
  byRole: z.record(z.string(), owner),
  note: z.string().optional(),
  tags: z.array(z.string()),
  answers: z.object({ name: z.string() }).catchall(z.string()),
  shape: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('circle'), radius: z.number() }),
    z.object({ kind: z.literal('square'), side: z.number() }),
  ]),
});

/** A bare app with the service's compilers, one route answering `payload` under `schema`. */
async function appAnswering(payload: () => unknown, schema: z.ZodType = record) {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.get('/thing', { schema: { response: { 200: schema } } }, async () => payload());
  return app;
}

const wide = () => ({
  id: 1,
  name: 'Room',
  passwordHash: 'secret-hash',
  owner: { id: 2, name: 'Ann', passwordHash: 'secret-hash' },
  members: [{ id: 3, name: 'Bob', publicToken: 'secret-token' }],
  byRole: { admin: { id: 4, name: 'Cy', apiKey: 'secret-key' } },
  tags: ['a', 'b'],
  answers: { name: 'Dee', company: 'Acme' },
  shape: { kind: 'square', side: 2, secret: 'secret-shape' },
});

describe('response serialisation', () => {
  test('emits only the keys the schema declares, at every depth', async () => {
    const app = await appAnswering(wide);
    const response = await app.inject({ method: 'GET', url: '/thing' });
    assert.equal(response.statusCode, 200);
    assert.doesNotMatch(response.body, /secret/);
    assert.deepEqual(response.json(), {
      id: 1,
      name: 'Room',
      owner: { id: 2, name: 'Ann' },
      members: [{ id: 3, name: 'Bob' }],
      byRole: { admin: { id: 4, name: 'Cy' } },
      tags: ['a', 'b'],
      // A catchall keeps undeclared keys, as Zod's encode did.
      answers: { name: 'Dee', company: 'Acme' },
      shape: { kind: 'square', side: 2 },
    });
    // The same text Zod's encode and JSON.stringify made before.
    assert.equal(response.body, JSON.stringify(z.encode(record, wide() as z.output<typeof record>)));
    await app.close();
  });

  test('writes a frozen answer once, and anything else on every response', async () => {
    let reads = 0;
    const named = () => ({
      id: 1,
      get name() {
        reads += 1;
        return `read ${reads}`;
      },
    });
    const frozen = Object.freeze(named());
    const open = named();
    let payload: object = frozen;
    const app = await appAnswering(() => payload, owner);
    const get = async () => (await app.inject({ method: 'GET', url: '/thing' })).body;
    assert.equal(await get(), '{"id":1,"name":"read 1"}');
    assert.equal(await get(), '{"id":1,"name":"read 1"}', 'the frozen answer is not read again');
    assert.equal(reads, 1);
    payload = open;
    assert.equal(await get(), '{"id":1,"name":"read 2"}');
    assert.equal(await get(), '{"id":1,"name":"read 3"}', 'an unfrozen answer is written anew');
    await app.close();
  });

  test('refuses at start-up a response schema that transforms on output', async () => {
    const app = await appAnswering(
      () => 'x',
      z.string().transform((value) => value.length),
    );
    await assert.rejects(async () => {
      await app.ready();
    }, /GET \/thing: a transform cannot run on output/);
  });
});

describe('the response schema check of the test apps', () => {
  const checked = async (payload: () => unknown, schema?: z.ZodType) => {
    const app = await appAnswering(payload, schema);
    return { app, check: checkResponsesAgainstSchemas(app) };
  };

  test('fails a response that does not match its schema', async () => {
    const { app, check } = await checked(() => ({ ...wide(), name: 42 }));
    const response = await app.inject({ method: 'GET', url: '/thing' });
    assert.equal(response.statusCode, 500);
    assert.equal(check.failures.length, 1);
    assert.match(check.failures[0]!, /GET \/thing 200 does not match its schema[\s\S]*name/);
    assert.throws(() => check.assertResponsesMatched(), /broke their schema/);
    await app.close();
  });

  test('fails a body the serializer changed', async () => {
    const app = Fastify({ logger: false });
    const check = checkResponsesAgainstSchemas(app);
    // A serializer that loses a declared key.
    app.setSerializerCompiler(() => (data) => JSON.stringify({ ...(data as object), name: undefined }));
    app.get('/thing', { schema: { response: { 200: owner } } }, async () => ({ id: 1, name: 'Ann' }));
    const response = await app.inject({ method: 'GET', url: '/thing' });
    assert.equal(response.statusCode, 500);
    assert.match(check.failures[0]!, /sent \{"id":1\}\nbut its schema makes \{"id":1,"name":"Ann"\}/);
    await app.close();
  });

  test('checks the answers of the error handler too', async () => {
    const app = Fastify({ logger: false });
    const check = checkResponsesAgainstSchemas(app);
    app.setSerializerCompiler(serializerCompiler);
    app.setErrorHandler((_error, _request, reply) => reply.code(404).send({ success: false }));
    app.get(
      '/thing',
      { schema: { response: { 404: z.object({ success: z.literal(false), code: z.string() }) } } },
      () => {
        throw new Error('boom');
      },
    );
    await app.inject({ method: 'GET', url: '/thing' });
    assert.match(check.failures[0]!, /GET \/thing 404 does not match its schema[\s\S]*code/);
    await app.close();
  });
});

describe('responses of the service', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('a resource never carries its public token, in the list or alone', async () => {
    const user = await registerUser(t.app);
    const post = (url: string, payload: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url, headers: user.auth, payload });
    await post('/api/organisations', { name: 'Serialise' });
    const type = (await post('/api/resource-types', { name: 'Desks', bookingMode: 'BOTH' })).json();
    const created = await post('/api/resources', { name: 'Desk', resourceTypeId: type.id, capacity: 2 });
    assert.equal(created.statusCode, 201);
    const token = (
      await t.app.inject({ url: `/api/resources/${created.json().id}/public-token`, headers: user.auth })
    ).json().token as string;
    const list = await t.app.inject({ url: '/api/resources', headers: user.auth });
    const one = await t.app.inject({ url: `/api/resources/${created.json().id}`, headers: user.auth });
    for (const response of [created, list, one]) {
      assert.equal(response.statusCode, 200 + (response === created ? 1 : 0));
      assert.ok(!response.body.includes(token), 'the token is not in the body');
      assert.doesNotMatch(response.body, /publicToken/);
    }
    assert.equal(list.json().length, 3);
  });
});
