// The small pure helpers the agents' and approvals' screens share: their statuses in words, money
// in major units, the person's zone.
import type { AgentStatus, ApprovalStatus } from '../../api/types.js';
import { minorPerMajor } from '../organisations/currency.js';

export const APPROVAL_STATUSES: ApprovalStatus[] = [
  'pending',
  'approved',
  'executed',
  'failed',
  'denied',
  'expired',
];

export const approvalStatusWords: Record<ApprovalStatus, string> = {
  pending: 'waiting for you',
  approved: 'approved, running',
  executed: 'executed',
  failed: 'failed',
  denied: 'denied',
  expired: 'expired',
};

export const agentStatusWords: Record<AgentStatus, string> = {
  active: 'active',
  paused: 'paused',
  disabled: 'disabled',
};

/** The person's own zone: the browser's (the API keeps no zone for a person). */
export const personZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * An amount typed in major units as the API wants it: minor units; null when empty; the text
 * itself when it is no amount (the API then refuses it on that field, in words).
 */
export function minorOf(text: string, currency: string): number | string | null {
  if (text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? Math.round(value * minorPerMajor(currency)) : text;
}

/** Minor units shown in major units for a form field ("" for none). */
export const majorOf = (minor: number | null, currency: string) =>
  minor == null ? '' : String(minor / minorPerMajor(currency));

/** A count typed in a field: a number when it reads as one, else the text; null when empty. */
export function countOf(text: string): number | string | null {
  if (text.trim() === '') return null;
  return Number.isFinite(Number(text)) ? Number(text) : text;
}

/** The part of an action key that names its area: "calendar.events.read" is "calendar". */
export const areaOf = (key: string) => key.split('.')[0] ?? key;

/** The MCP tool name of an action key. */
export const toolNameOf = (key: string) => key.replaceAll('.', '_');
