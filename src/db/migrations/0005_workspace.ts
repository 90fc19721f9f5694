import { type Kysely, sql } from 'kysely';
import type { Columns } from './columns.js';

/** Personal workspace II: tasks, routines, household inventory, automation rules. */
export function workspace(c: Columns) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await c
        .withId(db.schema.createTable('routines'))
        .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('timezone', 'text', (col) => col.notNull())
        .addColumn('start_date', 'text', (col) => col.notNull())
        .addColumn('recurrence', 'text', (col) => col.notNull())
        .addColumn('templates', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('routines_owner_idx').on('routines').column('owner_id').execute();

      await c
        .withId(db.schema.createTable('routine_runs'))
        .addColumn('routine_id', 'integer', (col) =>
          col.notNull().references('routines.id').onDelete('cascade'),
        )
        .addColumn('occurrence_date', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        // A run instantiates an occurrence once, however many callers race for it.
        .addUniqueConstraint('routine_runs_routine_date_key', ['routine_id', 'occurrence_date'])
        .execute();

      await c
        .withId(db.schema.createTable('tasks'))
        .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('title', 'text', (col) => col.notNull())
        .addColumn('notes', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('priority', 'text', (col) => col.notNull())
        .addColumn('due_at', c.timestamp)
        .addColumn('completed_at', c.timestamp)
        .addColumn('routine_id', 'integer', (col) => col.references('routines.id').onDelete('set null'))
        .addColumn('occurrence_date', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      // The list: an owner's tasks in (due_at nulls last, id) order, optionally by status.
      await db.schema
        .createIndex('tasks_owner_due_idx')
        .on('tasks')
        .columns(['owner_id', 'due_at', 'id'])
        .execute();
      await db.schema
        .createIndex('tasks_owner_status_due_idx')
        .on('tasks')
        .columns(['owner_id', 'status', 'due_at'])
        .execute();
      // A routine run answers the tasks of its occurrence.
      await db.schema
        .createIndex('tasks_routine_idx')
        .on('tasks')
        .columns(['routine_id', 'occurrence_date'])
        .execute();

      await c
        .withId(db.schema.createTable('task_labels'))
        .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('color', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .addUniqueConstraint('task_labels_owner_name_key', ['owner_id', 'name'])
        .execute();

      await db.schema
        .createTable('task_label_links')
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('label_id', 'integer', (col) =>
          col.notNull().references('task_labels.id').onDelete('cascade'),
        )
        .addPrimaryKeyConstraint('task_label_links_pkey', ['task_id', 'label_id'])
        .execute();
      // The labelId filter: from a label to its tasks.
      await db.schema
        .createIndex('task_label_links_label_idx')
        .on('task_label_links')
        .columns(['label_id', 'task_id'])
        .execute();

      await c
        .withId(db.schema.createTable('task_checklist_items'))
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('text', 'text', (col) => col.notNull())
        .addColumn('done', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .addColumn('position', 'integer', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('task_checklist_items_task_idx')
        .on('task_checklist_items')
        .columns(['task_id', 'position'])
        .execute();

      await db.schema
        .createTable('task_dependencies')
        .addColumn('task_id', 'integer', (col) => col.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('blocked_by_task_id', 'integer', (col) =>
          col.notNull().references('tasks.id').onDelete('cascade'),
        )
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addPrimaryKeyConstraint('task_dependencies_pkey', ['task_id', 'blocked_by_task_id'])
        .execute();
      // The other direction: what a task blocks (deletes cascade through it).
      await db.schema
        .createIndex('task_dependencies_blocker_idx')
        .on('task_dependencies')
        .columns(['blocked_by_task_id', 'task_id'])
        .execute();

      await c
        .withId(db.schema.createTable('household_items'))
        .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        // Deleting a group hands each shared item back to its creator, private again.
        .addColumn('group_id', 'integer', (col) => col.references('user_groups.id').onDelete('set null'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('quantity', 'double precision', (col) => col.notNull())
        .addColumn('unit', 'text')
        .addColumn('location', 'text')
        .addColumn('expires_at', c.timestamp)
        .addColumn('notes', 'text')
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      // The list reads private items by owner and shared items by group, both in (expires_at, id) order.
      await db.schema
        .createIndex('household_items_owner_idx')
        .on('household_items')
        .columns(['owner_id', 'expires_at', 'id'])
        .execute();
      await db.schema
        .createIndex('household_items_group_idx')
        .on('household_items')
        .columns(['group_id', 'expires_at', 'id'])
        .execute();

      await c
        .withId(db.schema.createTable('automation_rules'))
        .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('enabled', c.bool, (col) => col.notNull().defaultTo(sql`true`))
        .addColumn('trigger', 'text', (col) => col.notNull())
        .addColumn('conditions', 'text', (col) => col.notNull().defaultTo('{}'))
        .addColumn('actions', 'text', (col) => col.notNull())
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addColumn('updated_at', c.timestamp, (col) => col.notNull())
        .execute();
      // Dispatch: an owner's rules for one trigger.
      await db.schema
        .createIndex('automation_rules_owner_trigger_idx')
        .on('automation_rules')
        .columns(['owner_id', 'trigger'])
        .execute();

      await c
        .withId(db.schema.createTable('automation_audit'))
        .addColumn('owner_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('rule_id', 'integer', (col) => col.references('automation_rules.id').onDelete('set null'))
        .addColumn('rule_name', 'text', (col) => col.notNull())
        .addColumn('trigger', 'text', (col) => col.notNull())
        .addColumn('subject_type', 'text')
        .addColumn('subject_id', 'integer')
        .addColumn('outcome', 'text', (col) => col.notNull())
        .addColumn('error', 'text')
        .addColumn('actions', 'text', (col) => col.notNull().defaultTo('[]'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .execute();
      // The audit list: an owner's entries newest first (id cursor).
      await db.schema
        .createIndex('automation_audit_owner_idx')
        .on('automation_audit')
        .columns(['owner_id', 'id'])
        .execute();
      await db.schema
        .createIndex('automation_audit_rule_idx')
        .on('automation_audit')
        .columns(['rule_id', 'id'])
        .execute();

      await c
        .withId(db.schema.createTable('event_tags'))
        .addColumn('event_id', 'integer', (col) => col.notNull().references('events.id').onDelete('cascade'))
        .addColumn('label', 'text', (col) => col.notNull())
        .addColumn('rule_id', 'integer', (col) => col.references('automation_rules.id').onDelete('set null'))
        .addColumn('created_at', c.timestamp, (col) => col.notNull())
        .addUniqueConstraint('event_tags_event_label_key', ['event_id', 'label'])
        .execute();
    },
  };
}
