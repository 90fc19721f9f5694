import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, registerUser, type TestApp } from '../helpers/app.js';

const MiB = 1024 * 1024;

/** Settles on close, whatever error came before it (events.once would reject on 'error'). */
const closedOf = (socket: Socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()));
const drained = (socket: Socket) => new Promise<void>((resolve) => socket.once('drain', () => resolve()));

interface Exchange {
  /** Everything the server sent before the connection ended. */
  received: string;
  /** How many body bytes the client got to write. */
  written: number;
  /** The socket error the client saw, if any (a reset: ECONNRESET or EPIPE). */
  error?: NodeJS.ErrnoException;
}

/**
 * A client as curl or a browser sends a large upload: headers announcing the whole length,
 * then the body in 1 MiB writes, reading whatever the server answers while it writes.
 * `readWhileWriting: false` is a client that looks at the answer only once it has sent all.
 */
async function upload(
  port: number,
  path: string,
  options: { bytes: number; headers?: Record<string, string>; readWhileWriting?: boolean },
): Promise<Exchange> {
  const socket: Socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  const exchange: Exchange = { received: '', written: 0 };
  if (options.readWhileWriting === false) socket.pause();
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', (error: NodeJS.ErrnoException) => {
    exchange.error ??= error;
  });
  const closed = closedOf(socket);
  const headers = {
    host: '127.0.0.1',
    'content-type': 'application/json',
    'content-length': String(options.bytes),
    ...options.headers,
  };
  socket.write(
    `POST ${path} HTTP/1.1\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`,
  );
  const chunk = Buffer.alloc(MiB, 0x20);
  while (exchange.written < options.bytes && !socket.destroyed && socket.writable) {
    const flushed = socket.write(chunk);
    exchange.written += chunk.length;
    if (!flushed) await Promise.race([drained(socket), closed]);
  }
  if (socket.writable) socket.end();
  if (options.readWhileWriting === false) socket.resume();
  await closed;
  exchange.received = Buffer.concat(chunks).toString('latin1');
  return exchange;
}

function statusAndEnvelope(exchange: Exchange) {
  const [head = '', body = ''] = exchange.received.split('\r\n\r\n');
  const status = Number(head.split(' ')[1]);
  let code: string | undefined;
  try {
    code = JSON.parse(body).error?.code;
  } catch {
    code = undefined;
  }
  return { status, code, head };
}

describe('a body over the limit, sent by a client still writing it', () => {
  let t: TestApp;
  let port: number;
  let auth: { authorization: string };
  before(async () => {
    t = await createTestApp();
    auth = (await registerUser(t.app)).auth;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(() => t.close());

  test('50 MiB with Content-Length in 1 MiB writes to a public route reads the 413 envelope, no reset', async () => {
    const exchange = await upload(port, '/api/monitoring/frontend-errors', { bytes: 50 * MiB });
    const answer = statusAndEnvelope(exchange);
    assert.equal(answer.status, 413, `${exchange.error?.code ?? ''} ${exchange.received.slice(0, 200)}`);
    assert.equal(answer.code, 'PAYLOAD_TOO_LARGE');
    assert.match(answer.head, /\r\nconnection: close/i, 'the client is told the connection ends');
    assert.equal(exchange.error, undefined, `the client saw ${exchange.error?.code}`);
  });

  test('the same on an authenticated route and on the CSP report route (every route, one place)', async () => {
    for (const [path, headers] of [
      ['/api/calendars', auth],
      ['/api/security/reports/csp', {}],
    ] as const) {
      const exchange = await upload(port, path, { bytes: 50 * MiB, headers });
      const answer = statusAndEnvelope(exchange);
      assert.equal(
        answer.status,
        413,
        `${path}: ${exchange.error?.code ?? ''} ${exchange.received.slice(0, 200)}`,
      );
      assert.equal(answer.code, 'PAYLOAD_TOO_LARGE', path);
      assert.equal(exchange.error, undefined, `${path}: the client saw ${exchange.error?.code}`);
    }
  });

  test('a client that reads only after sending everything still finds the 413 waiting', async () => {
    const exchange = await upload(port, '/api/monitoring/frontend-errors', {
      bytes: 50 * MiB,
      readWhileWriting: false,
    });
    assert.equal(exchange.written, 50 * MiB, 'the server read and discarded the whole body');
    const answer = statusAndEnvelope(exchange);
    assert.equal(answer.status, 413, `${exchange.error?.code ?? ''} ${exchange.received.slice(0, 200)}`);
    assert.equal(answer.code, 'PAYLOAD_TOO_LARGE');
  });

  test('a chunked body (no Content-Length) that grows past the limit gets the 413 too', async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const chunks: Buffer[] = [];
    let error: NodeJS.ErrnoException | undefined;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e;
    });
    const closed = closedOf(socket);
    socket.write(
      'POST /api/monitoring/frontend-errors HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        'transfer-encoding: chunked\r\n\r\n',
    );
    const piece = Buffer.alloc(MiB, 0x20);
    for (let i = 0; i < 20 && socket.writable; i++) {
      const flushed = socket.write(`${piece.length.toString(16)}\r\n${piece.toString('latin1')}\r\n`);
      if (!flushed) await Promise.race([drained(socket), closed]);
    }
    if (socket.writable) socket.end('0\r\n\r\n');
    await closed;
    const answer = statusAndEnvelope({ received: Buffer.concat(chunks).toString('latin1'), written: 0 });
    assert.equal(answer.status, 413, error?.code);
    assert.equal(answer.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(error, undefined, `the client saw ${error?.code}`);
  });

  test('a body within the limit on the same server still works, and the server still serves', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/monitoring/frontend-errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'web', message: 'fine' }),
    });
    assert.equal(response.status, 202);
  });
});
