import { type Db, type Executor, inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, type DomainError, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { TaskRepo, TaskRow } from './repo.js';
import { CHECKLIST_MAX_ITEMS, type ChecklistItem, type UpdateChecklistItemInput } from './schemas.js';

interface ChecklistDeps {
  db: Db;
  repoFor(executor: Executor): TaskRepo;
  requireOwned(r: TaskRepo, actor: Actor, taskId: number, lock?: boolean): Promise<TaskRow>;
  /** The task service's check of an item's text (also used when a task is created with items). */
  checkText(text: string, path: string): string;
  invalid(path: string, message: string): DomainError;
}

/** A task's checklist: items with 0-based contiguous positions, each write under the task's row lock. */
export function createChecklist({ db, repoFor, requireOwned, checkText, invalid }: ChecklistDeps) {
  return {
    /** Appends an item (positions are 0-based and contiguous). */
    async addChecklistItem(actor: Actor, taskId: number, input: { text: string }): Promise<ChecklistItem> {
      const text = checkText(input.text, 'text');
      return inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        await requireOwned(r, actor, taskId, true);
        const items = await r.listItems(taskId);
        if (items.length >= CHECKLIST_MAX_ITEMS)
          throw conflict('CONFLICT', `A checklist holds at most ${CHECKLIST_MAX_ITEMS} items`);
        const now = nowIso();
        const [item] = await r.insertItems(taskId, [{ text, position: items.length }], now);
        await r.touch(taskId, now);
        return item!;
      });
    },

    /** Changes text or done, and/or moves the item to a 0-based position (past the end: last). */
    async updateChecklistItem(
      actor: Actor,
      taskId: number,
      itemId: number,
      patch: UpdateChecklistItemInput,
    ): Promise<ChecklistItem> {
      const text = patch.text === undefined ? undefined : checkText(patch.text, 'text');
      if (patch.position !== undefined && (!Number.isInteger(patch.position) || patch.position < 0))
        throw invalid('position', 'must be a whole number from 0');
      return inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        await requireOwned(r, actor, taskId, true);
        const items = await r.listItems(taskId);
        const index = items.findIndex((item) => item.id === itemId);
        const item = items[index];
        if (!item) throw notFound('Checklist item');
        const now = nowIso();
        const order = [...items];
        if (patch.position !== undefined) {
          order.splice(index, 1);
          order.splice(Math.min(patch.position, order.length), 0, item);
        }
        // Rewrites the places that changed (and any gap an earlier failure could have left).
        for (const [position, other] of order.entries()) {
          const changes = {
            ...(other.position !== position ? { position } : {}),
            ...(other.id === itemId && text !== undefined ? { text } : {}),
            ...(other.id === itemId && patch.done !== undefined ? { done: patch.done } : {}),
          };
          if (Object.keys(changes).length > 0) await r.updateItem(other.id, changes, now);
        }
        await r.touch(taskId, now);
        return {
          id: item.id,
          text: text ?? item.text,
          done: patch.done ?? item.done,
          position: order.indexOf(item),
        };
      });
    },

    async deleteChecklistItem(actor: Actor, taskId: number, itemId: number): Promise<void> {
      await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        await requireOwned(r, actor, taskId, true);
        const item = (await r.listItems(taskId)).find((candidate) => candidate.id === itemId);
        if (!item) throw notFound('Checklist item');
        const now = nowIso();
        await r.deleteItem(itemId);
        await r.closeGap(taskId, item.position, now);
        await r.touch(taskId, now);
      });
    },
  };
}
