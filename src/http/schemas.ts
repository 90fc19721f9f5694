import { z } from 'zod';

/** Ids are 32-bit integers on PostgreSQL; a larger one is a 400, never a database error. */
const MAX_ID = 2_147_483_647;
/** An id in a JSON body. */
export const entityId = z.number().int().min(1).max(MAX_ID, 'is not a valid id');
/** An id in a path or query string (text, coerced); anything else is a 400 before any handler runs. */
export const positiveId = z.coerce.number().int().min(1).max(MAX_ID, 'is not a valid id');
export const idParam = z.strictObject({ id: positiveId });

/**
 * Text written on one iCalendar content line (a name, a title, a location): a carriage return
 * or line feed is refused, so nothing a client writes can start a line of its own in a feed
 * or an invitation, whichever way it is escaped there.
 */
export const oneLine = <T extends z.ZodString>(text: T) =>
  text.refine((value) => !/[\r\n]/.test(value), 'must be one line (no carriage return or line feed)');

/**
 * A list filter taking several values: `a,b` or `x=a&x=b` (or both) in a query string, an array
 * from an MCP tool; values trimmed, empty ones dropped, repeats removed.
 */
export function listOf<T extends readonly [string, ...string[]]>(values: T) {
  return z
    .preprocess((input) => {
      if (input === undefined) return undefined;
      const parts = (Array.isArray(input) ? input : [input]).flatMap((part) =>
        typeof part === 'string' ? part.split(',') : [part],
      );
      return parts
        .map((part) => (typeof part === 'string' ? part.trim() : part))
        .filter((part) => part !== '');
    }, z.array(z.enum(values)).max(50).optional())
    .transform((list) => (list === undefined ? undefined : [...new Set(list)]));
}

/** Cursor paging of lists that grow without bound: `{items, nextCursor}`, nextCursor null on the last page. */
export const pageQuery = {
  cursor: z.string().max(512).optional().describe('nextCursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
};
export const page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() });

/**
 * The query of a write that can be tried without writing: `?dryRun=true` answers what the
 * write would do, stores nothing, and claims no Idempotency-Key (see `isDryRun`).
 */
export const dryRunQuery = z.strictObject({
  dryRun: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => value === 'true')
    .describe('true: write nothing and answer 200 {wouldSucceed, reservation | error}'),
});

/** OpenAPI security requirements, by who may call a route. */
type SecurityRequirement = Record<string, string[]>;
export const security: Record<'public' | 'user' | 'loginSession' | 'agent', SecurityRequirement[]> = {
  public: [],
  user: [{ bearerAuth: [] }, { apiKeyHeader: [] }, { apiKeyAuthorization: [] }],
  loginSession: [{ bearerAuth: [] }],
  agent: [{ agentKey: [] }, { oauthBearer: [] }],
};
