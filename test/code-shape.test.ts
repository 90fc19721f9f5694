import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';

// The shape rules of docs/architecture.md, for the service (src/) and the pages (frontend/src/):
// files under about 400 lines; functions under about 60, unless they only compose (a factory
// naming its parts and returning them, a route plugin registering routes) or say why in a
// comment that keeps them whole "on purpose".

const FILE_LINES = 400;
const FUNCTION_LINES = 70;
const ROOTS = ['src', 'frontend/src'];
/** Generated from the OpenAPI document (npm run api-types), never edited by hand. */
const GENERATED = new Set([join('frontend', 'src', 'api', 'schema.d.ts')]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !GENERATED.has(path) ? [path] : [];
  });
}

/** A return that hands back what the body named: an object of parts, a name, a call. */
function returnsParts(statement: ts.ReturnStatement): boolean {
  let value = statement.expression;
  if (value === undefined) return true;
  while (ts.isAsExpression(value) || ts.isSatisfiesExpression(value) || ts.isParenthesizedExpression(value)) {
    value = value.expression;
  }
  return ts.isObjectLiteralExpression(value) || ts.isIdentifier(value) || ts.isCallExpression(value);
}

/** A body that only declares, calls (registering routes, hooks) and returns what it declared. */
function onlyComposes(body: ts.Node | undefined): boolean {
  if (body === undefined || !ts.isBlock(body)) return false;
  return body.statements.every((statement) => {
    if (
      ts.isVariableStatement(statement) ||
      ts.isFunctionDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement)
    ) {
      return true;
    }
    if (ts.isExpressionStatement(statement)) {
      const call = ts.isAwaitExpression(statement.expression)
        ? statement.expression.expression
        : statement.expression;
      return ts.isCallExpression(call);
    }
    return ts.isReturnStatement(statement) && returnsParts(statement);
  });
}

/** The comments before the statement that holds `node` mention "on purpose". */
function keptWholeOnPurpose(node: ts.Node, text: string): boolean {
  let holder: ts.Node = node;
  while (holder.parent && !ts.isSourceFile(holder.parent) && !ts.isBlock(holder.parent))
    holder = holder.parent;
  const comments = ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? [];
  return comments.some((range) => text.slice(range.pos, range.end).includes('on purpose'));
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  return '(anonymous)';
}

/** `file:line name (n lines)` for each function over the limit that neither composes nor says why. */
export function longFunctions(file: string, text: string): string[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isMethodDeclaration(node)
    ) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
      if (lines > FUNCTION_LINES && !onlyComposes(node.body) && !keptWholeOnPurpose(node, text)) {
        found.push(`${file}:${first + 1} ${functionName(node)} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('code shape', () => {
  const files = ROOTS.flatMap((root) => sourceFiles(root));

  test(`a source file stays under ${FILE_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > FILE_LINES)
      .map(({ file, lines }) => `${file} (${lines} lines)`);
    assert.deepEqual(long, []);
  });

  test(`a function stays under ${FUNCTION_LINES} lines unless it only composes or says why`, () => {
    assert.deepEqual(
      files.flatMap((file) => longFunctions(file, readFileSync(file, 'utf8'))),
      [],
    );
  });

  test('the scan sees a long function, and lets a composition and a reason pass', () => {
    const body = Array.from({ length: FUNCTION_LINES }, (_, i) => `  total += ${i};`).join('\n');
    const logic = `export function sum() {\n  let total = 0;\n${body}\n  return total;\n}\n`;
    assert.deepEqual(longFunctions('sum.ts', logic), [`sum.ts:1 sum (${FUNCTION_LINES + 4} lines)`]);
    const parts = Array.from({ length: FUNCTION_LINES }, (_, i) => `  const part${i} = () => ${i};`).join(
      '\n',
    );
    assert.deepEqual(
      longFunctions('make.ts', `export function make() {\n${parts}\n  return { part0 };\n}\n`),
      [],
    );
    assert.deepEqual(longFunctions('sum.ts', `// Whole on purpose: the loop reads as one.\n${logic}`), []);
  });
});
