import type { Executor } from '../../db/database.js';
import {
  bool,
  changed,
  countOf,
  type DataSubject,
  exportSection,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';
import {
  eraseSecurity,
  securityCategory,
  securityExports,
  securityHoldings,
  securityTables,
} from './security-privacy.js';

const held = (db: Executor, { userId }: DataSubject) => ({
  users: db.selectFrom('users').where('id', '=', userId),
  loginSessions: db.selectFrom('loginSessions').where('userId', '=', userId),
  authSessions: db.selectFrom('authSessions').where('userId', '=', userId),
  accountLinks: db.selectFrom('accountLinks').where('userId', '=', userId),
  apiKeys: db.selectFrom('apiKeys').where('userId', '=', userId),
});

/**
 * The account, its sessions (with the browser each was signed in from), the links mailed to
 * it (never their tokens: only hashes are kept, and those are not exported) and API keys. Erasure deletes the user row last of all
 * (every other declaration has run by then), so a login with the old email fails
 * exactly as an unknown email does, and every login JWT stops verifying (the guard
 * looks the user up on each request).
 */
export const authPrivacy: PrivacyDeclaration = {
  module: 'auth',
  tables: {
    users: personal('account', 'deleted'),
    login_sessions: personal('sign_in', 'deleted (every refresh token stops working)'),
    auth_sessions: personal('sign_in', 'deleted (every session ends)'),
    account_links: personal('sign_in', 'deleted (every mailed link stops working)'),
    api_keys: personal('sign_in', 'deleted (every key stops working)'),
    ...securityTables,
  },
  categories: [
    {
      id: 'account',
      label:
        'Account: email (and whether it is verified), name, plan, administrator flag, active organisation',
      purpose: 'Signing you in and showing who you are to the organisations and groups you join',
      retention: 'Until your account is erased',
    },
    {
      id: 'sign_in',
      label:
        'Sign-in sessions (with the browser they were signed in from), mailed account links and API keys (only hashes of the secrets)',
      purpose: 'Keeping you signed in, letting your scripts call the API, detecting stolen refresh tokens',
      retention: 'Until your account is erased; revoked and expired entries are kept as history',
    },
    securityCategory,
  ],
  async holdings(db, subject) {
    const q = held(db, subject);
    return {
      users: await countOf(q.users),
      login_sessions: await countOf(q.loginSessions),
      auth_sessions: await countOf(q.authSessions),
      account_links: await countOf(q.accountLinks),
      api_keys: await countOf(q.apiKeys),
      ...(await securityHoldings(db, subject)),
    };
  },
  exports: [
    exportSection({
      name: 'profile',
      table: 'users',
      key: ['users.id'],
      rows: (db, s) =>
        held(db, s).users.select([
          'users.id',
          'email',
          'emailVerified',
          'name',
          'plan',
          'isGlobalAdmin',
          'activeOrganisationId',
          'twoFactorEnabled',
          'createdAt',
          'updatedAt',
        ]),
      record: (row) => ({
        ...row,
        emailVerified: bool(row.emailVerified),
        isGlobalAdmin: bool(row.isGlobalAdmin),
        twoFactorEnabled: bool(row.twoFactorEnabled),
      }),
    }),
    exportSection({
      name: 'loginSessions',
      table: 'login_sessions',
      key: ['loginSessions.id'],
      rows: (db, s) =>
        held(db, s).loginSessions.select([
          'loginSessions.id',
          'authSessionId',
          'createdAt',
          'expiresAt',
          'revokedAt',
        ]),
    }),
    exportSection({
      name: 'sessions',
      table: 'auth_sessions',
      key: ['authSessions.id'],
      rows: (db, s) =>
        held(db, s).authSessions.select([
          'authSessions.id',
          'userAgent',
          'createdAt',
          'lastUsedAt',
          'expiresAt',
          'revokedAt',
        ]),
    }),
    exportSection({
      name: 'accountLinks',
      table: 'account_links',
      key: ['accountLinks.id'],
      rows: (db, s) =>
        held(db, s).accountLinks.select([
          'accountLinks.id',
          'purpose',
          'email',
          'createdAt',
          'expiresAt',
          'usedAt',
        ]),
    }),
    exportSection({
      name: 'apiKeys',
      table: 'api_keys',
      key: ['apiKeys.id'],
      rows: (db, s) =>
        held(db, s).apiKeys.select(['apiKeys.id', 'label', 'prefix', 'createdAt', 'lastUsedAt', 'revokedAt']),
    }),
    ...securityExports,
  ],
  async erase(trx, subject) {
    const { userId } = subject;
    const secondFactors = await eraseSecurity(trx, subject);
    const sessions = await trx.deleteFrom('loginSessions').where('userId', '=', userId).executeTakeFirst();
    const signIns = await trx.deleteFrom('authSessions').where('userId', '=', userId).executeTakeFirst();
    const links = await trx.deleteFrom('accountLinks').where('userId', '=', userId).executeTakeFirst();
    const keys = await trx.deleteFrom('apiKeys').where('userId', '=', userId).executeTakeFirst();
    const user = await trx.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
    return {
      login_sessions: changed(sessions),
      auth_sessions: changed(signIns),
      account_links: changed(links),
      api_keys: changed(keys),
      ...secondFactors,
      users: changed(user),
    };
  },
};
