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

const held = (db: Executor, { userId }: DataSubject) => ({
  users: db.selectFrom('users').where('id', '=', userId),
  loginSessions: db.selectFrom('loginSessions').where('userId', '=', userId),
  apiKeys: db.selectFrom('apiKeys').where('userId', '=', userId),
});

/**
 * The account, login sessions and API keys. Erasure deletes the user row last of all
 * (every other declaration has run by then), so a login with the old email fails
 * exactly as an unknown email does, and every login JWT stops verifying (the guard
 * looks the user up on each request).
 */
export const authPrivacy: PrivacyDeclaration = {
  module: 'auth',
  tables: {
    users: personal('account', 'deleted'),
    login_sessions: personal('sign_in', 'deleted (every refresh token stops working)'),
    api_keys: personal('sign_in', 'deleted (every key stops working)'),
  },
  categories: [
    {
      id: 'account',
      label: 'Account: email, name, plan, administrator flag, active organisation',
      purpose: 'Signing you in and showing who you are to the organisations and groups you join',
      retention: 'Until your account is erased',
    },
    {
      id: 'sign_in',
      label: 'Sign-in sessions and API keys (only hashes of the secrets)',
      purpose: 'Keeping you signed in, letting your scripts call the API, detecting stolen refresh tokens',
      retention: 'Until your account is erased; revoked and expired entries are kept as history',
    },
  ],
  async holdings(db, subject) {
    const q = held(db, subject);
    return {
      users: await countOf(q.users),
      login_sessions: await countOf(q.loginSessions),
      api_keys: await countOf(q.apiKeys),
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
          'name',
          'plan',
          'isGlobalAdmin',
          'activeOrganisationId',
          'createdAt',
          'updatedAt',
        ]),
      record: (row) => ({ ...row, isGlobalAdmin: bool(row.isGlobalAdmin) }),
    }),
    exportSection({
      name: 'loginSessions',
      table: 'login_sessions',
      key: ['loginSessions.id'],
      rows: (db, s) =>
        held(db, s).loginSessions.select(['loginSessions.id', 'createdAt', 'expiresAt', 'revokedAt']),
    }),
    exportSection({
      name: 'apiKeys',
      table: 'api_keys',
      key: ['apiKeys.id'],
      rows: (db, s) =>
        held(db, s).apiKeys.select(['apiKeys.id', 'label', 'prefix', 'createdAt', 'lastUsedAt', 'revokedAt']),
    }),
  ],
  async erase(trx, { userId }) {
    const sessions = await trx.deleteFrom('loginSessions').where('userId', '=', userId).executeTakeFirst();
    const keys = await trx.deleteFrom('apiKeys').where('userId', '=', userId).executeTakeFirst();
    const user = await trx.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
    return { login_sessions: changed(sessions), api_keys: changed(keys), users: changed(user) };
  },
};
