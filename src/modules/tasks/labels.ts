import type { Actor } from '../../lib/actor.js';
import { notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { TaskContext } from './context.js';
import { labelClash } from './rules.js';
import {
  type CreateLabelInput,
  DEFAULT_LABEL_COLOR,
  type TaskLabel,
  type UpdateLabelInput,
} from './schemas.js';

/** A person's task labels; names are unique per person. */
export interface TaskLabels {
  listLabels(actor: Actor): Promise<TaskLabel[]>;
  /** Label names are unique per user (409 CONFLICT). */
  createLabel(actor: Actor, input: CreateLabelInput): Promise<TaskLabel>;
  updateLabel(actor: Actor, labelId: number, input: UpdateLabelInput): Promise<TaskLabel>;
  /** Deletes the label and takes it off every task. */
  deleteLabel(actor: Actor, labelId: number): Promise<void>;
}

export function createTaskLabels({ repo }: TaskContext): TaskLabels {
  return {
    listLabels: (actor) => repo.listLabels(actor.userId),

    createLabel: (actor, input) =>
      repo
        .insertLabel(
          actor.userId,
          { name: input.name.trim(), color: input.color ?? DEFAULT_LABEL_COLOR },
          nowIso(),
        )
        .catch(labelClash),

    async updateLabel(actor, labelId, input) {
      if (!(await repo.findLabel(actor.userId, labelId))) throw notFound('Label');
      const name = input.name !== undefined ? { name: input.name.trim() } : {};
      const color = input.color !== undefined ? { color: input.color } : {};
      return repo.updateLabel(labelId, { ...name, ...color }, nowIso()).catch(labelClash);
    },

    async deleteLabel(actor, labelId) {
      if (!(await repo.findLabel(actor.userId, labelId))) throw notFound('Label');
      await repo.deleteLabel(labelId);
    },
  };
}
