import { isUniqueViolation } from '../../db/errors.js';
import { conflict, validationFailed } from '../../lib/errors.js';
import { instant } from '../events/schemas.js';
import { CHECKLIST_TEXT_MAX, TASK_NOTES_MAX, TASK_TITLE_MAX } from './schemas.js';

// The HTTP schemas check these already; the use cases re-check them for callers that skip
// the schemas (MCP tools, routines, automation templates).

export const invalid = (path: string, message: string) =>
  validationFailed(`Invalid task: ${path}: ${message}`, [{ path, message }]);

export function checkTitle(title: string, path = 'title'): string {
  const trimmed = title.trim();
  if (trimmed.length < 1 || trimmed.length > TASK_TITLE_MAX)
    throw invalid(path, `must be 1..${TASK_TITLE_MAX} characters`);
  return trimmed;
}

export function checkNotes(notes: string | null | undefined, path = 'notes'): string | null {
  if (notes === undefined || notes === null) return null;
  if (notes.length > TASK_NOTES_MAX) throw invalid(path, `must be at most ${TASK_NOTES_MAX} characters`);
  return notes;
}

export function checkChecklistText(text: string, path: string): string {
  const trimmed = text.trim();
  if (trimmed.length < 1 || trimmed.length > CHECKLIST_TEXT_MAX)
    throw invalid(path, `must be 1..${CHECKLIST_TEXT_MAX} characters`);
  return trimmed;
}

/** An ISO 8601 instant with Z or an offset, answered in UTC; null stays null. */
export function checkInstant(value: string | null | undefined, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (!instant.safeParse(value).success)
    throw invalid(path, 'must be an ISO 8601 date-time with Z or an offset');
  return new Date(value).toISOString();
}

export const blocked = () =>
  conflict('TASK_BLOCKED', 'This task is blocked by a task that is neither done nor cancelled');

export function labelClash(error: unknown): never {
  if (isUniqueViolation(error)) throw conflict('CONFLICT', 'You already have a label with this name');
  throw error;
}
