// An approval in words: its outcome, its times, and the stored call's arguments as rows.
import type { Approval } from '../../api/types.js';

const OUTCOMES: Record<Approval['status'], string> = {
  pending: 'Waiting for your decision.',
  approved: 'Approved: the call is running.',
  executed: 'Approved: the call ran.',
  failed: 'Approved, but the call failed',
  denied: 'Denied: the call never ran.',
  expired: 'Expired: it was not decided within 24 hours, and the call never ran.',
};

export function outcomeOf(approval: Approval): string {
  let text = OUTCOMES[approval.status] ?? approval.status;
  const error = (approval.result as { error?: { message?: unknown } } | null)?.error;
  if (approval.status === 'failed' && typeof error?.message === 'string') text += `: ${error.message}`;
  return text;
}

export const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** "startTime" as "Start time", "customer.email" as "Customer email". */
function labelOf(path: string): string {
  const words = path
    .replaceAll('.', ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One argument's value in words: instants in the reader's time, yes/no, lists joined. */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return INSTANT.test(value) ? `${when(value)} (${value})` : value;
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null))
    return value.map(valueText).join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The stored call's arguments as label and text rows, nested objects one row per field. */
export function argumentRows(args: Record<string, unknown>, prefix = ''): [string, string][] {
  return Object.entries(args).flatMap(([key, value]): [string, string][] =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? argumentRows(value as Record<string, unknown>, `${prefix}${key}.`)
      : [[labelOf(`${prefix}${key}`), valueText(value)]],
  );
}

export const customerText = (customer: Approval['customer']) =>
  customer ? [customer.name, customer.email].filter(Boolean).join(' · ') : '';
