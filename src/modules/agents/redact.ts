/**
 * What an agent's activity keeps of a call's arguments: everything but contact details
 * and secrets, which read "[redacted]" (DECISIONS.md "Agents acting safely"). Keys are
 * matched by name at any depth, and any string that looks like an email address is
 * redacted wherever it stands (a title can carry one too).
 */
export const REDACTED = '[redacted]';

const SENSITIVE_KEY =
  /(e-?mail|phone|mobile|password|passphrase|secret|token|api_?key|^key$|credential|authori[sz]ation|cookie|address|iban|card)/i;
const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@]+/;
/** Nested deeper than this is cut: an activity row is a record of the call, not a copy of it. */
const MAX_DEPTH = 6;
const MAX_STRING = 500;

export function redactArguments(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    if (EMAIL.test(value)) return REDACTED;
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactArguments(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      SENSITIVE_KEY.test(key) && item !== null && item !== undefined
        ? REDACTED
        : redactArguments(item, depth + 1);
  }
  return out;
}
