import { z } from 'zod';

/** Path ids are positive integers; anything else is a 400 before any handler runs. */
export const positiveId = z.coerce.number().int().positive();
export const idParam = z.strictObject({ id: positiveId });

export const messageResponse = z.object({ message: z.string() });

/** OpenAPI security requirements, by who may call a route. */
type SecurityRequirement = Record<string, string[]>;
export const security: Record<'public' | 'user' | 'loginSession' | 'agent', SecurityRequirement[]> = {
  public: [],
  user: [{ bearerAuth: [] }, { apiKeyHeader: [] }, { apiKeyAuthorization: [] }],
  loginSession: [{ bearerAuth: [] }],
  agent: [{ agentKey: [] }, { oauthBearer: [] }],
};
