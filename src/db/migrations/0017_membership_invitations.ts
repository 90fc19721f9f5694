import type { Kysely } from 'kysely';
import type { Columns } from './columns.js';

/**
 * Membership by invitation: an invitation is a row of its own until the invited
 * person accepts it, and only acceptance writes `organisation_memberships`. So every
 * existing membership stays what it is, an accepted one, and every reader of
 * memberships (the tenant gate, role checks, plan counts) goes on seeing members only.
 *
 * An invitation names its person by `user_id` or by `email`, never both. `user_id`
 * has no foreign key on purpose: an invitation for an id no account has is stored
 * like any other, so the inviter cannot tell the two apart.
 */
export function membershipInvitations(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('organisation_invitations'))
        .addColumn('organisation_id', 'integer', (col) =>
          col.notNull().references('organisations.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'integer')
        // Lowercase, as users.email is stored.
        .addColumn('email', 'text')
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('invited_by_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('invited_at', c.timestamp, (col) => col.notNull())
        .addColumn('expires_at', c.timestamp, (col) => col.notNull())
        // One invitation per person and organisation: inviting again renews it. NULLs
        // never clash, so each constraint covers only its kind of invitation.
        .addUniqueConstraint('organisation_invitations_org_user_key', ['organisation_id', 'user_id'])
        .addUniqueConstraint('organisation_invitations_org_email_key', ['organisation_id', 'email'])
        .execute();
      // The invited person's list, by account and by email.
      await db.schema
        .createIndex('organisation_invitations_user_idx')
        .on('organisation_invitations')
        .columns(['user_id', 'id'])
        .execute();
      await db.schema
        .createIndex('organisation_invitations_email_idx')
        .on('organisation_invitations')
        .columns(['email', 'id'])
        .execute();
      // Privacy: the invitations a person sent.
      await db.schema
        .createIndex('organisation_invitations_invited_by_idx')
        .on('organisation_invitations')
        .columns(['invited_by_id', 'id'])
        .execute();
    },
  };
}
