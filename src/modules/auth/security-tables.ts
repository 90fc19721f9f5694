import type { Id, JsonText, Timestamp } from '../../db/column-types.js';

/** A person's TOTP secrets, sealed with ENCRYPTION_KEY (context: the user id). */
export interface TwoFactorSecretsTable {
  userId: number;
  /** The secret in use; null while two-factor is off. */
  secretSealed: string | null;
  /** A secret set up but not confirmed with a code yet. */
  pendingSecretSealed: string | null;
  /** The last time-step whose code was accepted: an older or equal step is a replay. */
  lastUsedStep: number | null;
  enabledAt: Timestamp | null;
  updatedAt: Timestamp;
}

export interface TwoFactorRecoveryCodesTable {
  id: Id;
  userId: number;
  /** SHA-256 of the normalised code. */
  codeHash: string;
  usedAt: Timestamp | null;
  createdAt: Timestamp;
}

/** The second step of a password login: SHA-256 of its token, until it expires or is used. */
export interface TwoFactorChallengesTable {
  id: Id;
  userId: number;
  tokenHash: string;
  expiresAt: Timestamp;
  createdAt: Timestamp;
}

export interface PasskeysTable {
  id: Id;
  userId: number;
  /** The WebAuthn credential id, base64url. */
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The authenticator's signature counter as last seen (0 for those that keep none). */
  counter: number;
  /** JSON array of transport hints, as the browser reported them. */
  transports: JsonText | null;
  name: string | null;
  createdAt: Timestamp;
  lastUsedAt: Timestamp | null;
}

export type PasskeyChallengePurpose = 'register' | 'login';

/** A WebAuthn challenge handed out; a registration's names its person. Used once. */
export interface PasskeyChallengesTable {
  id: Id;
  challenge: string;
  purpose: PasskeyChallengePurpose;
  userId: number | null;
  expiresAt: Timestamp;
  createdAt: Timestamp;
}

export interface SecurityTables {
  twoFactorSecrets: TwoFactorSecretsTable;
  twoFactorRecoveryCodes: TwoFactorRecoveryCodesTable;
  twoFactorChallenges: TwoFactorChallengesTable;
  passkeys: PasskeysTable;
  passkeyChallenges: PasskeyChallengesTable;
}
