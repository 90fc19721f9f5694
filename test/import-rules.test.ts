import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';

// The import rules of docs/architecture.md: shared machinery knows no domain.

/** Every .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The project paths a file imports (relative specifiers only), `.js` read as the `.ts` source. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g)].map(([, specifier]) =>
    relative('.', resolve(dirname(file), specifier!)).replace(/\.js$/, '.ts'),
  );
}

/** `file → import` for each import of the files under `from` that starts with one of `forbidden`. */
function breaches(from: string[], forbidden: string[]): string[] {
  return from
    .flatMap((dir) => sourceFiles(dir))
    .flatMap((file) =>
      importsOf(file)
        .filter((target) => forbidden.some((prefix) => target.startsWith(prefix)))
        .map((target) => `${file} → ${target}`),
    );
}

describe('import rules', () => {
  test('src/http and src/mcp import no module', () => {
    assert.deepEqual(breaches(['src/http', 'src/mcp'], ['src/modules/']), []);
  });

  test('src/db imports neither src/http nor a module', () => {
    assert.deepEqual(breaches(['src/db'], ['src/http/', 'src/modules/']), []);
  });

  test('src/lib and src/config import none of src/http, src/mcp, src/modules', () => {
    assert.deepEqual(breaches(['src/lib', 'src/config'], ['src/http/', 'src/mcp/', 'src/modules/']), []);
  });

  test('the scan sees imports', () => {
    assert.ok(importsOf('src/app.ts').includes('src/app-routes.ts'));
  });
});
