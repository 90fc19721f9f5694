import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendSigned } from '../../../src/modules/webhooks/sender.js';
import { type Receiver, startReceiver, verified } from './helpers.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const request = (url: string) => ({
  url,
  messageId: 'msg_1',
  secret: SECRET,
  body: JSON.stringify({ id: 'msg_1', type: 'webhook.test' }),
  at: new Date(),
});

/**
 * The sender's guard at connection time (issue 24: public addresses only, the same guard as
 * the Client ID Metadata Document fetch): a name resolving inward is refused when it is
 * connected to, not only when the endpoint was saved, and a kept-alive connection made
 * while private addresses were allowed is never reused once they are not.
 */
describe('webhook sender', () => {
  let receiver: Receiver;
  let port: string;
  before(async () => {
    receiver = await startReceiver();
    port = new URL(receiver.url).port;
  });
  after(() => receiver.close());

  test('signs each attempt as the standardwebhooks library verifies it, reusing the connection', async () => {
    for (let n = 0; n < 3; n++) {
      const outcome = await sendSigned(request(`http://127.0.0.1:${port}/hooks`), { allowPrivate: true });
      assert.deepEqual(outcome, { ok: true, statusCode: 204, error: null });
    }
    assert.equal(verified(SECRET, receiver.received.at(-1)!).id, 'msg_1');
    assert.deepEqual(new Set(receiver.received.map((r) => r.headers.connection)), new Set(['keep-alive']));
  });

  test('a private literal or a name resolving inward is refused at connection time', async () => {
    const before = receiver.received.length;
    const literal = await sendSigned(request(`http://127.0.0.1:${port}/hooks`), { allowPrivate: false });
    assert.deepEqual(literal, {
      ok: false,
      statusCode: null,
      error: 'the endpoint is not on a public address',
    });
    const named = await sendSigned(request(`http://localhost:${port}/hooks`), { allowPrivate: false });
    assert.deepEqual(named, {
      ok: false,
      statusCode: null,
      error: 'the endpoint does not resolve to a public address',
    });
    // The lax pool has a live connection to localhost now; the strict one must not use it.
    assert.equal(
      (await sendSigned(request(`http://localhost:${port}/hooks`), { allowPrivate: true })).ok,
      true,
    );
    const again = await sendSigned(request(`http://localhost:${port}/hooks`), { allowPrivate: false });
    assert.equal(again.ok, false);
    assert.equal(receiver.received.length, before + 1, 'only the allowed attempt arrived');
  });
});
