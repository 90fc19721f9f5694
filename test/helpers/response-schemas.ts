import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';

/**
 * The service serialises responses without validating them (src/http/serialize.ts),
 * so the tests do: every JSON response with a schema for its status must encode
 * under that schema (types, enums, refinements, required keys), and the body sent
 * must be exactly what Zod's encode + JSON.stringify made of the same payload (no
 * key dropped, none leaked, nothing changed). A failure answers 500 and is kept,
 * and `assertResponsesMatched` throws it when the app closes.
 */
export function checkResponsesAgainstSchemas(app: FastifyInstance) {
  const failures: string[] = [];
  const expected = new WeakMap<FastifyReply, string>();
  const fail = (message: string) => {
    failures.push(message);
    return new Error(`Response schema check: ${message}`);
  };

  app.addHook('preSerialization', async (request, reply, payload) => {
    const schema = responseSchema(request.routeOptions.schema?.response, reply.statusCode);
    if (!schema) return payload;
    const encoded = z.safeEncode(schema, payload);
    const where = `${request.method} ${request.routeOptions.url} ${reply.statusCode}`;
    if (!encoded.success) throw fail(`${where} does not match its schema: ${z.prettifyError(encoded.error)}`);
    expected.set(reply, JSON.stringify(encoded.data));
    return payload;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const wanted = expected.get(reply);
    if (wanted === undefined) return payload;
    expected.delete(reply);
    if (payload !== wanted) {
      throw fail(
        `${request.method} ${request.routeOptions.url} ${reply.statusCode} sent ${String(payload).slice(0, 500)}\nbut its schema makes ${wanted.slice(0, 500)}`,
      );
    }
    return payload;
  });

  return {
    failures,
    /** Throws when any response so far broke its schema. */
    assertResponsesMatched() {
      if (failures.length > 0) throw new Error(`Responses that broke their schema:\n${failures.join('\n')}`);
    },
  };
}

/** The schema fastify serialises a status with: exact status, then `4xx` style, then `default`. */
function responseSchema(responses: unknown, status: number): z.ZodType | undefined {
  if (!responses || typeof responses !== 'object') return undefined;
  const byStatus = responses as Record<string, unknown>;
  const entry = byStatus[status] ?? byStatus[`${String(status)[0]}xx`] ?? byStatus.default;
  return entry instanceof z.ZodType ? entry : undefined;
}
