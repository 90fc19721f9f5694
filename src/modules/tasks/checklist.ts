import { inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { TaskContext } from './context.js';
import { checkChecklistText, invalid } from './rules.js';
import { CHECKLIST_MAX_ITEMS, type ChecklistItem, type UpdateChecklistItemInput } from './schemas.js';

/** A task's checklist: items with 0-based contiguous positions, each write under the task's row lock. */
export interface TaskChecklist {
  /** Appends an item (positions are 0-based and contiguous). */
  addChecklistItem(actor: Actor, taskId: number, input: { text: string }): Promise<ChecklistItem>;
  /** Changes text or done, and/or moves the item to a 0-based position (past the end: last). */
  updateChecklistItem(
    actor: Actor,
    taskId: number,
    itemId: number,
    patch: UpdateChecklistItemInput,
  ): Promise<ChecklistItem>;
  deleteChecklistItem(actor: Actor, taskId: number, itemId: number): Promise<void>;
}

export function createChecklist({ db, repoFor, requireOwned }: TaskContext): TaskChecklist {
  return {
    /** Appends an item (positions are 0-based and contiguous). */
    async addChecklistItem(actor: Actor, taskId: number, input: { text: string }): Promise<ChecklistItem> {
      const text = checkChecklistText(input.text, 'text');
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
      const text = patch.text === undefined ? undefined : checkChecklistText(patch.text, 'text');
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
