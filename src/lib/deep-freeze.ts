/**
 * Freezes a value and everything it holds. A shared cached answer is frozen so that a
 * caller mutating it fails loudly instead of changing what other requests see, and so
 * the response serialiser may write its JSON once (src/http/serialize.ts).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const field of Object.values(value)) deepFreeze(field);
  }
  return value;
}
