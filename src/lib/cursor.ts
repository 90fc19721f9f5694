/**
 * Opaque keyset cursors: the sort key of the last item of a page, base64url JSON.
 * Clients pass them back unchanged; a tampered cursor decodes to null (a 400 upstream).
 */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor(cursor: string): (string | number)[] | null {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(key) && key.every((part) => typeof part === 'string' || typeof part === 'number'))
      return key;
  } catch {
    // fall through
  }
  return null;
}
