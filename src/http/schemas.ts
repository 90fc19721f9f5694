import { z } from 'zod';

/** Path ids are positive integers; anything else is a 400 before any handler runs. */
export const positiveId = z.coerce.number().int().positive();
export const idParam = z.strictObject({ id: positiveId });

/** Cursor paging of lists that grow without bound: `{items, nextCursor}`, nextCursor null on the last page. */
export const pageQuery = {
  cursor: z.string().max(512).optional().describe('nextCursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
};
export const page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() });

export const messageResponse = z.object({ message: z.string() });

/** OpenAPI security requirements, by who may call a route. */
type SecurityRequirement = Record<string, string[]>;
export const security: Record<'public' | 'user' | 'loginSession' | 'agent', SecurityRequirement[]> = {
  public: [],
  user: [{ bearerAuth: [] }, { apiKeyHeader: [] }, { apiKeyAuthorization: [] }],
  loginSession: [{ bearerAuth: [] }],
  agent: [{ agentKey: [] }, { oauthBearer: [] }],
};
