import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import { encryptSecret } from '../../../src/lib/crypto.js';
import type { WebhooksContext } from '../../../src/modules/webhooks/context.js';
import type { DeliveryRow, EndpointRow } from '../../../src/modules/webhooks/repo.js';
import { newSecret, sealContext } from '../../../src/modules/webhooks/secrets.js';
import { createSending } from '../../../src/modules/webhooks/sending.js';
import { TEST_ENV } from '../../helpers/app.js';
import { type Receiver, startReceiver } from './helpers.js';

const config = loadConfig({ ...TEST_ENV, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '1000' });
const at = new Date().toISOString();

function endpointAt(url: string): EndpointRow {
  return {
    id: 1,
    organisationId: 1,
    url,
    events: '["reservation.created"]',
    description: null,
    status: 'active',
    secretSealed: encryptSecret(config.encryptionKey, newSecret(), sealContext(1)),
    failingSince: null,
    disabledAt: null,
    createdAt: at,
    updatedAt: at,
  };
}

function delivery(id: number, leaseUntil: string): DeliveryRow {
  return {
    id,
    endpointId: 1,
    organisationId: 1,
    eventId: `evt_${id}`,
    eventType: 'reservation.created',
    userId: null,
    payload: JSON.stringify({ id: `evt_${id}` }),
    status: 'pending',
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: at,
    retryUntil: at,
    claimedUntil: leaseUntil,
    claimSlot: 'slot',
    createdAt: at,
    updatedAt: at,
  };
}

describe('a lane sending a claimed batch', () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  test('an attempt whose record fails while the next runs is logged, and the batch goes on', async () => {
    const warnings: string[] = [];
    let claims = 0;
    let records = 0;
    const repo = {
      dueEndpoints: async () => (claims === 0 ? [{ endpointId: 1, organisationId: 1 }] : []),
      async claimBatch({ leaseUntil }: { leaseUntil: string }) {
        claims += 1;
        if (claims > 1) return undefined;
        return {
          deliveries: [delivery(1, leaseUntil), delivery(2, leaseUntil)],
          endpoint: endpointAt(receiver.url),
        };
      },
      async recordAttempt() {
        records += 1;
        // The first record fails while the second attempt is in flight (the database away, say).
        if (records === 1) throw new Error('the database is away');
        return true;
      },
      release: async () => {},
    };
    const log = { warn: (_fields: object, message: string) => void warnings.push(message) };
    const sending = createSending({ config, log, repo } as unknown as WebhooksContext);

    const attempts = await sending.deliverDue();

    assert.equal(attempts, 2);
    assert.deepEqual(
      receiver.received.map((request) => request.headers['webhook-id']),
      ['evt_1', 'evt_2'],
    );
    assert.equal(records, 2);
    assert.deepEqual(warnings, ['webhook attempt not recorded']);
    await sending.close();
  });
});
