import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataCategory,
  type DataSubject,
  type ExportSection,
  exportSection,
  personal,
  type TableDeclaration,
} from '../../privacy/declaration.js';

// Two-factor sign-in and passkeys, as the auth module's privacy declaration (privacy.ts) holds them.

const held = (db: Executor, { userId }: DataSubject) => ({
  twoFactorSecrets: db.selectFrom('twoFactorSecrets').where('userId', '=', userId),
  twoFactorRecoveryCodes: db.selectFrom('twoFactorRecoveryCodes').where('userId', '=', userId),
  twoFactorChallenges: db.selectFrom('twoFactorChallenges').where('userId', '=', userId),
  passkeys: db.selectFrom('passkeys').where('userId', '=', userId),
  passkeyChallenges: db.selectFrom('passkeyChallenges').where('userId', '=', userId),
});

export const securityTables: Record<string, TableDeclaration> = {
  two_factor_secrets: personal('second_factor', 'deleted'),
  two_factor_recovery_codes: personal('second_factor', 'deleted'),
  two_factor_challenges: personal('second_factor', 'deleted'),
  passkeys: personal('second_factor', 'deleted (the passkeys stop working)'),
  passkey_challenges: personal('second_factor', 'deleted'),
};

export const securityCategory: DataCategory = {
  id: 'second_factor',
  label:
    'Two-factor sign-in and passkeys: whether two-factor is on, its secret (encrypted), hashes of recovery ' +
    'codes and sign-in challenges, and your passkeys (name, dates, public key)',
  purpose: 'A second proof that it is you when you sign in',
  retention: 'Until you turn two-factor off or delete the passkey, or your account is erased',
};

export async function securityHoldings(db: Executor, subject: DataSubject): Promise<Record<string, number>> {
  const q = held(db, subject);
  return {
    two_factor_secrets: await countOf(q.twoFactorSecrets),
    two_factor_recovery_codes: await countOf(q.twoFactorRecoveryCodes),
    two_factor_challenges: await countOf(q.twoFactorChallenges),
    passkeys: await countOf(q.passkeys),
    passkey_challenges: await countOf(q.passkeyChallenges),
  };
}

/**
 * Each row by its dates (and a passkey by its name): whether two-factor is on and since when,
 * which recovery codes were used. Never a secret, a code, a challenge, a hash or a key.
 */
export const securityExports: ExportSection[] = [
  exportSection({
    name: 'twoFactor',
    table: 'two_factor_secrets',
    key: ['twoFactorSecrets.userId'],
    rows: (db, s) =>
      held(db, s).twoFactorSecrets.select(['twoFactorSecrets.userId', 'enabledAt', 'updatedAt']),
  }),
  exportSection({
    name: 'twoFactorRecoveryCodes',
    table: 'two_factor_recovery_codes',
    key: ['twoFactorRecoveryCodes.id'],
    rows: (db, s) =>
      held(db, s).twoFactorRecoveryCodes.select(['twoFactorRecoveryCodes.id', 'createdAt', 'usedAt']),
  }),
  exportSection({
    name: 'twoFactorSignInSteps',
    table: 'two_factor_challenges',
    key: ['twoFactorChallenges.id'],
    rows: (db, s) =>
      held(db, s).twoFactorChallenges.select(['twoFactorChallenges.id', 'createdAt', 'expiresAt']),
  }),
  exportSection({
    name: 'passkeys',
    table: 'passkeys',
    key: ['passkeys.id'],
    rows: (db, s) => held(db, s).passkeys.select(['passkeys.id', 'name', 'createdAt', 'lastUsedAt']),
  }),
  exportSection({
    name: 'passkeyRegistrations',
    table: 'passkey_challenges',
    key: ['passkeyChallenges.id'],
    rows: (db, s) =>
      held(db, s).passkeyChallenges.select(['passkeyChallenges.id', 'purpose', 'createdAt', 'expiresAt']),
  }),
];

/** Deletes every row of the person's second factors (before the user row goes). */
export async function eraseSecurity(trx: Executor, { userId }: DataSubject): Promise<Record<string, number>> {
  const erased: Record<string, number> = {};
  for (const [name, table] of [
    ['two_factor_secrets', 'twoFactorSecrets'],
    ['two_factor_recovery_codes', 'twoFactorRecoveryCodes'],
    ['two_factor_challenges', 'twoFactorChallenges'],
    ['passkeys', 'passkeys'],
    ['passkey_challenges', 'passkeyChallenges'],
  ] as const) {
    erased[name] = changed(await trx.deleteFrom(table).where('userId', '=', userId).executeTakeFirst());
  }
  return erased;
}
