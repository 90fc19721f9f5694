import type { CallToolResult } from '@modelcontextprotocol/server';
import { type Alternative, ERROR_CODES, type ErrorCode, type OccurrenceConflict } from '../lib/errors.js';
import type { PendingApproval } from './types.js';

/** How a message names the arguments as a whole. */
export const ARGUMENTS = '(arguments)';

export const issuesText = (issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) =>
  issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : ARGUMENTS}: ${issue.message}`)
    .join('; ');

/** A call's result when it ran: its output, structured and as text (a task's result is the same). */
export const successResult = (output: unknown): CallToolResult => ({
  structuredContent: output as Record<string, unknown>,
  content: [{ type: 'text', text: JSON.stringify(output) }],
});

/** A refused call's result: `isError` with `{error: {code, message}}` (and what the refusal offers). */
export const errorResult = (
  code: ErrorCode,
  message: string,
  alternatives?: Alternative[],
  conflicts?: OccurrenceConflict[],
): CallToolResult => {
  const structuredContent = {
    error: { code, message, ...(alternatives ? { alternatives } : {}), ...(conflicts ? { conflicts } : {}) },
  };
  return {
    isError: true,
    structuredContent,
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
  };
};

/** The `{code, message}` of a refused call; null when the call succeeded. */
export function toolErrorOf(result: CallToolResult): { code: ErrorCode; message: string } | null {
  if (!result.isError) return null;
  const error = (result.structuredContent as { error?: { code?: unknown; message?: unknown } } | undefined)
    ?.error;
  const code = ERROR_CODES.find((known) => known === error?.code) ?? 'INTERNAL';
  return { code, message: typeof error?.message === 'string' ? error.message : 'Internal error' };
}

/** What a call the policy sends for approval answers: a result, not an error. */
export const approvalResult = ({
  id,
  expiresAt,
  approveUrl,
}: Pick<PendingApproval, 'id' | 'expiresAt' | 'approveUrl'>): CallToolResult => {
  const approval = { id, status: 'pending' as const, expiresAt, approveUrl };
  const structuredContent = { approvalRequired: true as const, approval };
  return {
    structuredContent,
    content: [
      {
        type: 'text',
        text: `${JSON.stringify(structuredContent)}\nThis call needs your person's approval: nothing was done yet. They decide at ${approval.approveUrl}; read the outcome with approvals_get {"approvalId": ${approval.id}}.`,
      },
    ],
  };
};
