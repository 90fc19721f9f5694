/** C0 control characters other than tab, line feed and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;

const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, 'g');

/** `text` with each such character replaced by U+FFFD, for recording a name nobody vouched for. */
export const replaceControlCharacters = (text: string) => text.replace(CONTROL_CHARACTERS, '\uFFFD');

/** The most issues one input reports: enough to fix it, never a huge message. */
const MAX_ISSUES = 10;

export interface ControlCharacterIssue {
  /** Where the string is: keys and array indexes from the input's root. */
  path: (string | number)[];
  message: string;
}

const codePoint = (text: string) =>
  `U+${(text.match(CONTROL_CHARACTER)?.[0] ?? '\0').charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The one rule for text input: no string anywhere in `value` (object keys included) may hold
 * a C0 control character other than tab, line feed and carriage return. PostgreSQL refuses
 * NUL in text where SQLite stores it; refusing them all up front gives every route and tool
 * the same 400 on both databases.
 */
export function controlCharacterIssues(value: unknown): ControlCharacterIssue[] {
  const issues: ControlCharacterIssue[] = [];
  const path: (string | number)[] = [];
  const found = (message: string) => issues.push({ path: [...path], message });
  const visit = (node: unknown) => {
    if (issues.length >= MAX_ISSUES) return;
    if (typeof node === 'string') {
      if (CONTROL_CHARACTER.test(node))
        found(
          `must not contain control characters (found ${codePoint(node)}); only tab, line feed and carriage return are allowed`,
        );
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        path.push(index);
        visit(node[index]);
        path.pop();
      }
      return;
    }
    if (ArrayBuffer.isView(node)) return; // a raw body: bytes, not text
    for (const key of Object.keys(node)) {
      if (CONTROL_CHARACTER.test(key))
        found(`has a field name with a control character (${codePoint(key)}): ${JSON.stringify(key)}`);
      path.push(key);
      visit((node as Record<string, unknown>)[key]);
      path.pop();
    }
  };
  visit(value);
  return issues;
}
