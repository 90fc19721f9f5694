import { z } from 'zod';

export const email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'must be a valid email address' }))
  .transform((value) => value.toLowerCase());

/** A password a person chooses (register, reset, change). */
export const newPassword = z.string().min(10, 'must be at least 10 characters').max(200);

export const registerBody = z.strictObject({
  email,
  password: newPassword,
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
  emailVerified: z.boolean().describe('Whether the address was proved by a mailed link'),
  name: z.string(),
  plan,
  isGlobalAdmin: z.boolean(),
  activeOrganisationId: z.number().int().nullable(),
  twoFactorEnabled: z.boolean().describe('Whether sign-in asks for a code of an authenticator app'),
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

export const sessionSummary = z.object({
  id: z.number().int(),
  createdAt: z.string(),
  lastUsedAt: z.string().describe('Updated at most once a minute'),
  userAgent: z.string().nullable().describe('The browser that signed in, as it named itself'),
  current: z.boolean().describe('The session of this request'),
});
export type SessionSummary = z.infer<typeof sessionSummary>;

/** A mailed link's token: 43 characters today; anything else is simply not a link. */
const linkToken = z.string().min(1).max(200);

export const verifyEmailBody = z.strictObject({ token: linkToken });
export const emailVerified = z.object({ emailVerified: z.literal(true) });

export const forgotPasswordBody = z.strictObject({ email });
export const resetPasswordBody = z.strictObject({ token: linkToken, password: newPassword });
export const changePasswordBody = z.strictObject({
  currentPassword: z.string().min(1).max(200),
  newPassword,
});
export const changeEmailBody = z.strictObject({ newEmail: email, password: z.string().min(1).max(200) });

export const passwordChanged = z.object({ passwordChanged: z.literal(true) });
export const accepted = z.object({ accepted: z.literal(true) }).describe('Accepted; see the mailbox');
