import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type AuthInfo,
  type JSONRPCMessage,
  type JSONRPCRequest,
  Server,
} from '@modelcontextprotocol/server';
import { ExchangeTransport, singleExchangeRequest } from '../../src/mcp/exchange.js';

const authOf = (clientId: string): AuthInfo => ({ token: '', clientId, scopes: [] });
const request = (id: number | string): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/list',
  params: {},
});

describe('ExchangeTransport', () => {
  test('requests with equal ids answered out of order each get their own answer, under their own id', async () => {
    const transport = new ExchangeTransport();
    const seen: Array<{ message: JSONRPCRequest; clientId: string | undefined }> = [];
    transport.onmessage = (message, extra) => {
      seen.push({ message: message as JSONRPCRequest, clientId: extra?.authInfo?.clientId });
    };
    const first = transport.exchange(request(1), authOf('agent:1'));
    const second = transport.exchange(request(1), authOf('agent:2'));
    const third = transport.exchange(request('x'), authOf('agent:3'));
    assert.equal(new Set(seen.map(({ message }) => message.id)).size, 3, 'the server sees distinct ids');
    // The server answers the last first, each with what its request's agent would see.
    for (const { message, clientId } of [...seen].reverse()) {
      await transport.send({ jsonrpc: '2.0', id: message.id, result: { clientId } } as JSONRPCMessage);
    }
    assert.deepEqual(await first, { jsonrpc: '2.0', id: 1, result: { clientId: 'agent:1' } });
    assert.deepEqual(await second, { jsonrpc: '2.0', id: 1, result: { clientId: 'agent:2' } });
    assert.deepEqual(await third, { jsonrpc: '2.0', id: 'x', result: { clientId: 'agent:3' } });
  });

  test('a request whose client left is cancelled: its handler is told, and nothing waits for it', async () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    let handlerSignal: AbortSignal | undefined;
    const stopped = new Promise<void>((resolve) => {
      server.setRequestHandler('tools/list', async (_request, ctx) => {
        handlerSignal = ctx.mcpReq.signal;
        await new Promise<void>((wake) => ctx.mcpReq.signal.addEventListener('abort', () => wake()));
        resolve();
        return { tools: [] };
      });
    });
    const transport = new ExchangeTransport();
    await server.connect(transport);
    let cancel!: () => void;
    const answer = transport.exchange(request(7), authOf('agent:1'), (given) => {
      cancel = given;
    });
    await new Promise((tick) => setImmediate(tick));
    assert.equal(handlerSignal?.aborted, false);
    cancel();
    await stopped;
    assert.deepEqual(await answer, {
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32800, message: 'Request cancelled' },
    });
    await server.close();
  });

  test('messages other than answers, and answers to nothing pending, are dropped', async () => {
    const transport = new ExchangeTransport();
    let delivered: JSONRPCRequest | undefined;
    transport.onmessage = (message) => {
      delivered = message as JSONRPCRequest;
    };
    const answer = transport.exchange(request(5), authOf('agent:1'));
    const id = delivered!.id;
    await transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: {} } as JSONRPCMessage);
    await transport.send({ jsonrpc: '2.0', id: 999_999, result: {} } as JSONRPCMessage);
    await transport.send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
    assert.deepEqual(await answer, {
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32601, message: 'Method not found' },
    });
  });
});

describe('singleExchangeRequest', () => {
  const post = {
    body: request(1),
    contentType: 'application/json',
    accept: 'application/json, text/event-stream',
    protocolVersion: '2025-11-25',
    mcpMethod: undefined,
    mcpName: undefined,
  };
  const versions = ['2026-07-28', '2025-11-25'];

  test('a single 2025-era request that passes the transport checks is served as one exchange', () => {
    assert.deepEqual(singleExchangeRequest(post, versions), post.body);
    assert.ok(singleExchangeRequest({ ...post, protocolVersion: undefined }, versions));
    assert.ok(singleExchangeRequest({ ...post, contentType: 'application/json; charset=utf-8' }, versions));
  });

  test('everything else is left to the SDK transport', () => {
    const others = {
      batch: { ...post, body: [request(1)] },
      notification: { ...post, body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
      initialize: {
        ...post,
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'c', version: '1' },
          },
        },
      },
      'no Accept': { ...post, accept: undefined },
      'no event streams accepted': { ...post, accept: 'application/json' },
      'not JSON': { ...post, contentType: 'text/plain' },
      'an unsupported version': { ...post, protocolVersion: '1999-01-01' },
      'a 2026-07-28 envelope': {
        ...post,
        protocolVersion: '2026-07-28',
        mcpMethod: 'tools/list',
        body: {
          ...request(1),
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        },
      },
    };
    for (const [what, other] of Object.entries(others)) {
      assert.equal(singleExchangeRequest(other, versions), undefined, what);
    }
  });
});
