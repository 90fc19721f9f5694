import { z } from 'zod';
import { totpDigits } from './two-factor.js';

// Two-factor sign-in and passkeys: bodies and answers (DECISIONS.md "Accounts").

/** A code of an authenticator app: six digits, spaces allowed ("123 456"). */
const totpCode = z
  .string()
  .max(20)
  .refine((code) => totpDigits(code) !== null, 'must be the 6-digit code of your authenticator app');

const recoveryCode = z.string().trim().min(1).max(40);

export const twoFactorSetup = z.object({
  secret: z.string().describe('Base32; for apps that cannot scan the QR code'),
  otpauthUrl: z.string().describe('otpauth://totp/… for the QR code'),
});

export const enableTwoFactorBody = z.strictObject({ code: totpCode });

export const recoveryCodesAnswer = z.object({
  recoveryCodes: z.array(z.string()).describe('Shown only in this response; each works once'),
});

export const disableTwoFactorBody = z.strictObject({
  password: z.string().min(1).max(200),
  code: recoveryCode.describe('A code of the authenticator app, or one of the recovery codes'),
});

export const twoFactorStatus = z.object({ twoFactorEnabled: z.boolean() });

export const twoFactorChallenge = z.object({
  twoFactorRequired: z.literal(true),
  challenge: z.string().describe('For POST /api/auth/login/2fa, within 5 minutes'),
});

export const secondStepBody = z
  .strictObject({
    challenge: z.string().min(1).max(200),
    code: totpCode.optional(),
    recoveryCode: recoveryCode.optional(),
  })
  .refine((body) => (body.code === undefined) !== (body.recoveryCode === undefined), {
    message: 'give exactly one of code and recoveryCode',
  })
  .transform(({ challenge, code, recoveryCode }) =>
    code !== undefined ? { challenge, code } : { challenge, recoveryCode: recoveryCode ?? '' },
  );

export const passkey = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type Passkey = z.infer<typeof passkey>;

const base64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

const transport = z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);
const userVerification = z.enum(['discouraged', 'preferred', 'required']);

const credentialDescriptor = z.object({
  id: z.string(),
  type: z.literal('public-key'),
  transports: z.array(transport).optional(),
});

/** What `navigator.credentials.create` takes (SimpleWebAuthn's optionsJSON). */
export const registrationOptions = z.object({
  rp: z.object({ id: z.string().optional(), name: z.string() }),
  user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
  challenge: z.string(),
  pubKeyCredParams: z.array(z.object({ type: z.literal('public-key'), alg: z.number().int() })),
  timeout: z.number().int().optional(),
  excludeCredentials: z.array(credentialDescriptor).optional(),
  authenticatorSelection: z
    .object({
      authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
      residentKey: userVerification.optional(),
      requireResidentKey: z.boolean().optional(),
      userVerification: userVerification.optional(),
    })
    .optional(),
  hints: z.array(z.enum(['hybrid', 'security-key', 'client-device'])).optional(),
  attestation: z.enum(['direct', 'enterprise', 'indirect', 'none']).optional(),
  extensions: z.object({ credProps: z.boolean().optional() }).optional(),
});
export type RegistrationOptions = z.infer<typeof registrationOptions>;

/** What `navigator.credentials.get` takes. */
export const authenticationOptions = z.object({
  challenge: z.string(),
  timeout: z.number().int().optional(),
  rpId: z.string().optional(),
  allowCredentials: z.array(credentialDescriptor).optional(),
  userVerification: userVerification.optional(),
});
export type AuthenticationOptions = z.infer<typeof authenticationOptions>;

const clientExtensionResults = z.object({
  appid: z.boolean().optional(),
  credProps: z.object({ rk: z.boolean().optional() }).optional(),
  hmacCreateSecret: z.boolean().optional(),
});

const credentialFields = {
  id: base64url(1024),
  rawId: base64url(1024),
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults,
};

/** A registration as SimpleWebAuthn's `startRegistration` answers it, with a name for the passkey. */
export const registerPasskeyBody = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64url(8192),
    attestationObject: base64url(32768),
    authenticatorData: base64url(8192).optional(),
    // Hints only: kept when known, so a browser's new transport does not fail the registration.
    transports: z
      .array(z.string().max(32))
      .max(10)
      .optional()
      .transform((names) =>
        names?.filter((name): name is z.infer<typeof transport> => transport.safeParse(name).success),
      ),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(8192).optional(),
  }),
  name: z.string().trim().min(1).max(100).optional().describe('How the passkey is listed, e.g. "Laptop"'),
});

/** An assertion as SimpleWebAuthn's `startAuthentication` answers it. */
export const passkeyLoginBody = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64url(8192),
    authenticatorData: base64url(8192),
    signature: base64url(2048),
    userHandle: base64url(1024).optional(),
  }),
});
