// Every translation catalogue has every key of its `en` catalogue, and no other, in every
// language (DECISIONS.md "Booking everywhere"). Generic: it finds each `locales` folder under
// src/ and frontend/src/ laid out as `locales/<language>/<namespace>.json`, so the pages'
// catalogues are checked as the mails' are, by being put there.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LOCALES } from '../../src/i18n/locales.js';

const ROOTS = ['src', 'frontend/src'];

/** Every folder named `locales` under `dir`. */
function localeFolders(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules')
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.name === 'locales' ? [path] : localeFolders(path);
    });
}

/** i18next's plural forms differ by language (`_one`, `_few`, `_many`): a key is counted without them. */
const PLURAL = /_(zero|one|two|few|many|other)$/;

/** A catalogue's keys, dotted (`payment.subject`), with the `{{values}}` each puts in. */
function keysOf(value: unknown, prefix = ''): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof inner === 'string') {
      assert.notEqual(inner.trim(), '', `${path} is empty`);
      const values = [...inner.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]!);
      const base = path.replace(PLURAL, '');
      keys.set(base, [...new Set([...(keys.get(base) ?? []), ...values])].sort());
    } else {
      assert.ok(inner && typeof inner === 'object', `${path} must be text or an object of texts`);
      for (const [k, v] of keysOf(inner, path)) keys.set(k, v);
    }
  }
  return keys;
}

const readCatalogue = (path: string) => keysOf(JSON.parse(readFileSync(path, 'utf8')));

const folders = ROOTS.flatMap(localeFolders);

describe('translation catalogues', () => {
  test('the mail catalogues are among those checked', () => {
    assert.ok(folders.includes(join('src', 'i18n', 'locales')), JSON.stringify(folders));
  });

  for (const folder of folders) {
    test(`${folder}: every language has every namespace and key of en, and no other`, () => {
      const languages = readdirSync(folder, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort();
      assert.deepEqual(languages, [...LOCALES].sort(), `the languages of ${folder}`);
      const namespaces = readdirSync(join(folder, 'en')).filter((name) => name.endsWith('.json'));
      assert.ok(namespaces.length > 0, `${folder}/en has no catalogue`);
      for (const language of LOCALES) {
        const theirs = readdirSync(join(folder, language)).filter((name) => name.endsWith('.json'));
        assert.deepEqual(theirs.sort(), [...namespaces].sort(), `the namespaces of ${folder}/${language}`);
        for (const namespace of namespaces) {
          const reference = readCatalogue(join(folder, 'en', namespace));
          const catalogue = readCatalogue(join(folder, language, namespace));
          const where = `${folder}/${language}/${namespace}`;
          const missing = [...reference.keys()].filter((key) => !catalogue.has(key));
          const extra = [...catalogue.keys()].filter((key) => !reference.has(key));
          assert.deepEqual(missing, [], `${where} lacks keys`);
          assert.deepEqual(extra, [], `${where} has keys en does not`);
          // A translation puts in the values its English puts in: a lost {{deadline}} loses a fact.
          for (const [key, values] of reference)
            assert.deepEqual(catalogue.get(key), values, `${where}: the {{values}} of ${key}`);
        }
      }
    });
  }
});
