import { z } from 'zod';

export const email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'must be a valid email address' }))
  .transform((value) => value.toLowerCase());

export const registerBody = z.strictObject({
  email,
  password: z.string().min(10, 'must be at least 10 characters').max(200),
  name: z.string().trim().min(1).max(200),
});

export const loginBody = z.strictObject({
  email,
  password: z.string().min(1).max(200),
});

export const plan = z.enum(['STORE', 'ENTERPRISE']);

export const user = z.object({
  id: z.number().int(),
  email: z.string(),
  name: z.string(),
  plan,
  isGlobalAdmin: z.boolean(),
  activeOrganisationId: z.number().int().nullable(),
  createdAt: z.string(),
});
export type User = z.infer<typeof user>;

export const sessionResponse = z.object({
  accessToken: z.string(),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().int(),
  user,
});

export const createApiKeyBody = z.strictObject({
  label: z.string().trim().min(1).max(100),
});

export const apiKey = z.object({
  id: z.number().int(),
  label: z.string(),
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiKey = z.infer<typeof apiKey>;

export const createdKey = z.object({
  id: z.number().int(),
  label: z.string(),
  prefix: z.string(),
  key: z.string().describe('Shown only in this response'),
  createdAt: z.string(),
});
export type CreatedKey = z.infer<typeof createdKey>;
