import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';

/**
 * The README and the guides under docs/ name repository files, environment variables and npm
 * scripts; each must exist. A path is a backticked or linked name under one of the repository's
 * folders (placeholders such as `<domain>` and `*` match any entry); a variable is an
 * UPPER_CASE name in backticks, or assigned in front of a command, that the service or its
 * tools read (src/config.ts's schema, composed of src/config/*.ts, or `process.env.X` anywhere in the code); an UPPER_CASE
 * name the code spells as a string or declares (an error code, an enum value, a constant) is
 * not a variable. A link to a heading of a document must find that heading.
 */

const ROOT = PROJECT_ROOT;
const THIS_FILE = fileURLToPath(import.meta.url);
const TOP_FOLDERS = ['src', 'test', 'docs', 'bench', 'scripts', 'tools', 'frontend', '.ci'];
const ROOT_FILES =
  /^(package\.json|package-lock\.json|\.env\.example|biome\.json|tsconfig[\w.]*\.json|README\.md)$/;
const PATH = new RegExp(`^(?:${TOP_FOLDERS.map((f) => f.replace('.', '\\.')).join('|')})(?:/[^\\s]*)?$`);
const UPPER_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
/** `NAME=value` in front of a command; an iCalendar `FREQ=WEEKLY;...` is not one. */
const ASSIGNMENT = /^([A-Z][A-Z0-9_]*)=([^;]*)$/;
/** MCP methods, which read like paths under tools/. */
const MCP_METHODS = new Set(['tools/call', 'tools/list']);
/**
 * The record of choices: its entries cite files and names as they stood when each was made, and
 * it is reshaped apart from the guides, so its references are not checked here.
 */
const UNCHECKED = new Set(['docs/decisions.md']);

interface Known {
  /** Variables the service or its tools read. */
  env: ReadonlySet<string>;
  /** UPPER_CASE names the code spells as strings or declares. */
  codeNames: ReadonlySet<string>;
  /** package.json's scripts. */
  scripts: ReadonlySet<string>;
}

/** Code files under `dir`, this file left out: its made-up names must stay unknown. */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', '__toolsnaps__'].includes(entry.name) ? [] : sourceFiles(path);
    return /\.(ts|tsx|mjs|cjs|js)$/.test(entry.name) && path !== THIS_FILE ? [path] : [];
  });
}

/** The variables of src/config.ts's schema: the keys of each area's schema under src/config/. */
function configVariables(root: string): string[] {
  const folder = join(root, 'src', 'config');
  return readdirSync(folder)
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(join(folder, file), 'utf8').matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map(
        ([, name]) => name!,
      ),
    );
}

/** What the repository defines, read from its code (this file's own made-up names excluded). */
function knownNames(root = ROOT): Known {
  const env = new Set<string>();
  const codeNames = new Set<string>();
  for (const name of configVariables(root)) env.add(name);
  const folders = ['src', 'frontend/src', 'tools', 'scripts', 'bench', 'test'];
  for (const file of folders.flatMap((folder) => sourceFiles(join(root, folder)))) {
    const text = readFileSync(file, 'utf8');
    for (const [, a, b] of text.matchAll(
      /process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g,
    ))
      env.add((a ?? b)!);
    for (const [, name] of text.matchAll(/['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"`]/g)) codeNames.add(name!);
    for (const [, name] of text.matchAll(
      /\b(?:const|let|function|class|enum|type|interface)\s+([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g,
    ))
      codeNames.add(name!);
    for (const [, name] of text.matchAll(/^\s*([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\s*:/gm)) codeNames.add(name!);
  }
  const scripts: Record<string, string> = JSON.parse(
    readFileSync(join(root, 'package.json'), 'utf8'),
  ).scripts;
  for (const command of Object.values(scripts))
    for (const [, name] of command.matchAll(/\b([A-Z][A-Z0-9_]*)=/g)) env.add(name!);
  return { env, codeNames, scripts: new Set(Object.keys(scripts)) };
}

/** Whether a repository path exists; `<name>` and `*` in a segment match any entry. */
function pathExists(path: string, root = ROOT): boolean {
  const wantsFolder = path.endsWith('/');
  const segments = path.split('/').filter(Boolean);
  const walk = (dir: string, rest: string[]): boolean => {
    if (rest.length === 0) return !wantsFolder || statSync(dir).isDirectory();
    const [segment, ...tail] = rest as [string, ...string[]];
    if (!/[<*]/.test(segment)) {
      const next = join(dir, segment);
      return existsSync(next) && walk(next, tail);
    }
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return false;
    const pattern = new RegExp(
      `^${segment
        .split(/(<[^>]+>|\*)/)
        .map((part) =>
          part.startsWith('<') || part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('')}$`,
    );
    return readdirSync(dir).some((entry) => pattern.test(entry) && walk(join(dir, entry), tail));
  };
  return walk(root, segments);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(markdown: string): Set<string> {
  const outside = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...outside.matchAll(/^#{1,6}\s+(.+)$/gm)].map(([, heading]) => anchorOf(heading!)));
}

const trimToken = (token: string) => token.replace(/^[([{"'<]+/, '').replace(/[)\]}"'>.,;:\\]+$/, '');
const tokensOf = (text: string) =>
  text
    .split(/[\s"'`(),;=[\]{}|]+/)
    .map(trimToken)
    .filter(Boolean);

/** A document's parts: its code blocks, its prose, and the code spans of its prose. */
function partsOf(markdown: string) {
  const fences = [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map(([, body]) => body!);
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map(([, span]) => span!);
  return { fences, prose, spans };
}

/**
 * Assignments in the code blocks: shell variables a block sets on a line of their own
 * (`TOKEN=$(curl ...)`), which are not settings, and variables set in front of a command.
 */
function assignmentsIn(fences: readonly string[]) {
  const shellVariables = new Set<string>();
  const envAssignments: string[] = [];
  for (const line of fences.flatMap((body) => body.split('\n'))) {
    const words = line.trim().split(/\s+/);
    const first = ASSIGNMENT.exec(words[0] ?? '');
    const standalone = first && (/^[$"']/.test(first[2]!) || words.length === 1);
    if (first && standalone) shellVariables.add(first[1]!);
    for (const word of standalone ? [] : words) {
      const assigned = ASSIGNMENT.exec(word);
      if (assigned) envAssignments.push(assigned[1]!);
    }
  }
  return { shellVariables, envAssignments };
}

function linkProblems(file: string, prose: string, root: string): string[] {
  const problems: string[] = [];
  for (const [, target] of prose.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
    if (/^(https?:|mailto:)/.test(target!)) continue;
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = path ? relative(root, join(root, dirname(file), path)) : file;
    if (path && !pathExists(resolved, root))
      problems.push(`${file}: the link ${target} leads to ${resolved}, which does not exist`);
    else if (anchor && resolved.endsWith('.md')) {
      if (!anchorsIn(readFileSync(join(root, resolved), 'utf8')).has(anchor))
        problems.push(`${file}: the link ${target} names no heading of ${resolved}`);
    }
  }
  return problems;
}

/** Every problem of one document (`file` is its path from the repository's root). */
function checkDocument(file: string, markdown: string, known: Known, root = ROOT): string[] {
  const { fences, prose, spans } = partsOf(markdown);
  const problems: string[] = [];
  for (const token of [...spans.flatMap(tokensOf), ...fences.flatMap(tokensOf)]) {
    const path = token.replace(/#.*$/, '');
    if ((PATH.test(token) || ROOT_FILES.test(token)) && !MCP_METHODS.has(token) && !pathExists(path, root))
      problems.push(`${file}: code names ${path}, which does not exist`);
  }
  problems.push(...linkProblems(file, prose, root));

  const { shellVariables, envAssignments } = assignmentsIn(fences);
  const checkVariable = (name: string, assigned: boolean) => {
    if (known.env.has(name) || shellVariables.has(name)) return;
    if (!assigned && known.codeNames.has(name)) return;
    problems.push(`${file}: ${name} is not an environment variable the service or its tools read`);
  };
  for (const name of envAssignments) checkVariable(name, true);
  for (const token of spans.flatMap((span) => span.split(/\s+/))) {
    const assigned = ASSIGNMENT.exec(token);
    if (assigned) checkVariable(assigned[1]!, true);
    else if (UPPER_NAME.test(trimToken(token))) checkVariable(trimToken(token), false);
  }

  for (const [, script] of markdown.matchAll(/\bnpm run ([\w:-]+)/g))
    if (!known.scripts.has(script!))
      problems.push(`${file}: npm run ${script} is not a script of package.json`);
  for (const [, builtin] of markdown.matchAll(/\bnpm (start|test)\b/g))
    if (!known.scripts.has(builtin!))
      problems.push(`${file}: npm ${builtin} is not a script of package.json`);
  return problems;
}

function documents(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].filter((file) => !UNCHECKED.has(file));
}

describe('documentation references', () => {
  const known = knownNames();

  test('every path, link, variable and npm script the README and docs/ name exists', () => {
    const problems = documents().flatMap((file) =>
      checkDocument(file, readFileSync(join(ROOT, file), 'utf8'), known),
    );
    assert.deepEqual(problems, []);
  });

  test('the operating guide lists every variable of src/config.ts', () => {
    const guide = readFileSync(join(ROOT, 'docs', 'operating.md'), 'utf8');
    const names = configVariables(ROOT);
    assert.ok(names.length > 40, 'the schema was read');
    assert.deepEqual(
      names.filter((name) => !guide.includes(`\`${name}\``)),
      [],
    );
  });

  test('a made-up reference of each kind is reported, and real ones are not', () => {
    const madeUp = [
      'See `src/no-such-file.ts` and [the guide](no-such-guide.md), [a heading](operating.md#no-such-heading).',
      'Set `NO_SUCH_SETTING` or `NO_SUCH_FLAG=1`, then `npm run no-such-script`.',
      '```sh',
      'NO_SUCH_PREFIX=1 npm start',
      'cat tools/no-such-tool.ts',
      '```',
    ].join('\n');
    const problems = checkDocument('docs/made-up.md', madeUp, known);
    for (const expected of [
      'src/no-such-file.ts',
      'no-such-guide.md',
      '#no-such-heading',
      'NO_SUCH_SETTING',
      'NO_SUCH_FLAG',
      'NO_SUCH_PREFIX',
      'no-such-script',
      'tools/no-such-tool.ts',
    ])
      assert.ok(
        problems.some((problem) => problem.includes(expected)),
        `${expected} not reported: ${problems.join('; ')}`,
      );
    assert.equal(problems.length, 8, problems.join('\n'));

    const real = [
      '`src/config.ts`, `src/modules/<domain>/module.ts`, `test/browser/*.browser.ts`, `docs/`.',
      '[Operating](operating.md#configuration); `PORT=3001 npm start`; `SLOT_UNAVAILABLE`; `$BASE`.',
      'Then `npm run build` and `npm test`; `BASE` below.',
      '```sh',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell default, as the README's tour sets it
      'BASE=${BASE:-http://localhost:3000}',
      'TOKEN=$(curl -s $BASE/api/auth/register)',
      'DATABASE_URL=sqlite:./data/x.db npm run migrate',
      '```',
    ].join('\n');
    assert.deepEqual(checkDocument('docs/made-up.md', real, known), []);
  });
});
