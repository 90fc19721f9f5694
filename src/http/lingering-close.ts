import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/** The longest a closing connection keeps reading a body nobody will use (nginx's lingering_time). */
export const LINGER_MS = 30_000;
/** The most it reads and discards before closing anyway. */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;

/** Node publishes every finished response here, just before it closes or reuses the socket. */
const RESPONSE_FINISH = 'http.server.response.finish';

interface ResponseFinish {
  request: IncomingMessage;
  socket: Socket;
  server: Server;
}

/**
 * Lingering close, for every route. When an answer goes out before its request body has
 * arrived (the early 413 on Content-Length, a chunked body cut off at the limit), Fastify
 * asks for `Connection: close` and Node destroys the socket as soon as the answer is
 * written. A client still writing its body then gets a reset, and the reset makes its TCP
 * stack drop the answer it had not read yet: the 413 never reaches it. Instead, as nginx
 * and Apache do, the socket sends the answer and its FIN, keeps reading and discarding the
 * rest of that body (Node's parser drains it) until the body ends, LINGER_MAX_BYTES or
 * LINGER_MS, and only then closes. Returns the stop for app close, which ends lingering
 * sockets at once so shutdown never waits for them.
 */
export function lingerBeforeClosing(server: Server): () => void {
  const lingering = new Set<Socket>();
  const onFinish = (message: unknown) => {
    const { request, socket, server: from } = message as ResponseFinish;
    if (from !== server || request.complete) return;
    // Node calls destroySoon right after this message when the answer closes the connection;
    // when it keeps the connection instead, it reads the body to its end itself, and the
    // socket gets its own destroySoon back.
    const lingerInstead = () => {
      Reflect.deleteProperty(socket, 'destroySoon');
      if (request.complete) socket.destroySoon();
      else linger(socket, request, lingering);
    };
    socket.destroySoon = lingerInstead;
    request.once('end', () => {
      if (socket.destroySoon === lingerInstead) Reflect.deleteProperty(socket, 'destroySoon');
    });
  };
  subscribe(RESPONSE_FINISH, onFinish);
  return () => {
    unsubscribe(RESPONSE_FINISH, onFinish);
    for (const socket of lingering) socket.destroy();
  };
}

function linger(socket: Socket, request: IncomingMessage, lingering: Set<Socket>) {
  socket.end(); // the answer, then FIN: the client learns nothing more is coming
  lingering.add(socket);
  let discarded = 0;
  const stop = () => {
    clearTimeout(timer);
    lingering.delete(socket);
    socket.destroy();
  };
  const timer = setTimeout(stop, LINGER_MS);
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_MAX_BYTES) stop();
  });
  // The whole body is in: close once the answer is flushed, as Node would have.
  request.once('end', () => {
    clearTimeout(timer);
    lingering.delete(socket);
    socket.destroySoon();
  });
  socket.once('close', () => {
    clearTimeout(timer);
    lingering.delete(socket);
  });
}
