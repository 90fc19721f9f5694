// The customer pages' catalogues (frontend/src/i18n/locales/<language>/pages.json) beyond what
// test/i18n/catalogues.test.ts checks of every catalogue (each language has en's keys and values):
// the plural forms each language needs and en's markup; every key the pages and the MCP Apps use
// is in their `en` catalogue; the language is chosen as DECISIONS.md "Booking everywhere" says;
// the console carries none of it.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { chooseLanguage, intlLocale, LANGUAGES, languageOf } from '../../frontend/src/i18n/languages.js';
import { Marked } from '../../frontend/src/i18n/Marked.js';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';

const FRONTEND = join(PROJECT_ROOT, 'frontend', 'src');
const LOCALES = join(FRONTEND, 'i18n', 'locales');
const PLURAL = /_(zero|one|two|few|many|other)$/;

type Catalogue = { [key: string]: string | Catalogue };

const catalogueOf = (language: string): Catalogue =>
  JSON.parse(readFileSync(join(LOCALES, language, 'pages.json'), 'utf8')) as Catalogue;

/** Every text of a catalogue by its dotted key. */
function flatten(catalogue: Catalogue, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(catalogue)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

/** The keys without their plural suffix, each with the plural forms it has. */
function baseKeys(texts: Map<string, string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const key of texts.keys()) {
    const form = PLURAL.exec(key)?.[1];
    const base = key.replace(PLURAL, '');
    const forms = out.get(base) ?? new Set<string>();
    if (form) forms.add(form);
    out.set(base, forms);
  }
  return out;
}

/** `{{name}}` placeholders and `<strong>` markup of a text, sorted. */
const marksOf = (text: string) =>
  [...text.matchAll(/\{\{\s*(\w+)\s*\}\}|<\/?(\w+)>/g)].map((m) => m[0]).sort();

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );

describe('customer page catalogues', () => {
  const en = flatten(catalogueOf('en'));
  const enBases = baseKeys(en);

  for (const language of LANGUAGES.filter((l) => l !== 'en')) {
    test(`${language} has each plural form its language needs, and en's placeholders and markup`, () => {
      const texts = flatten(catalogueOf(language));
      const needed = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
      for (const [base, forms] of baseKeys(texts)) {
        // A key en does not have is test/i18n/catalogues.test.ts's to report.
        if (!enBases.has(base)) continue;
        if (enBases.get(base)!.size === 0) {
          assert.equal(forms.size, 0, `${base} is no plural in en`);
          assert.deepEqual(marksOf(texts.get(base)!), marksOf(en.get(base)!), `${language} ${base}`);
          continue;
        }
        for (const form of needed) {
          const text = texts.get(`${base}_${form}`);
          assert.ok(text, `${language} ${base}_${form}`);
          const english = en.get(`${base}_other`)!;
          assert.deepEqual(
            marksOf(text).filter((m) => m !== '{{count}}'),
            marksOf(english).filter((m) => m !== '{{count}}'),
            `${language} ${base}_${form}`,
          );
        }
      }
    });
  }

  /**
   * The en catalogue a source file's keys name: that of the nearest folder up with a
   * `locales/en` of its own (an MCP App's, `i18n/`'s pages), its keys and top-level sections.
   */
  function enCatalogueOf(file: string): { bases: Map<string, Set<string>>; sections: Set<string> } {
    for (let dir = dirname(file); dir.startsWith(FRONTEND); dir = dirname(dir)) {
      const own = join(dir, 'locales', 'en');
      if (dir === FRONTEND || !existsSync(own)) continue;
      const catalogues = readdirSync(own).map(
        (name) => JSON.parse(readFileSync(join(own, name), 'utf8')) as Catalogue,
      );
      return {
        bases: baseKeys(new Map(catalogues.flatMap((catalogue) => [...flatten(catalogue)]))),
        sections: new Set(catalogues.flatMap((catalogue) => Object.keys(catalogue))),
      };
    }
    return { bases: enBases, sections: new Set(Object.keys(catalogueOf('en'))) };
  }

  test('every key the pages and apps name is in their en catalogue (a key built from a value: its prefix)', () => {
    const unknown: string[] = [];
    for (const file of sourceFiles(FRONTEND)) {
      const source = readFileSync(file, 'utf8');
      const { bases, sections } = enCatalogueOf(file);
      for (const m of source.matchAll(/\bt\(\s*'([\w.]+)'|i18nKey="([\w.]+)"|'([a-zA-Z]+\.[\w.]+)'/g)) {
        const key = m[1] ?? m[2] ?? m[3]!;
        const named = m[1] ?? m[2];
        // A bare string counts where it starts with a section of the catalogue (`'book.booking'`).
        if (!named && (!sections.has(key.split('.')[0]!) || relative(FRONTEND, file).startsWith('console')))
          continue;
        if (!bases.has(key)) unknown.push(`${relative(FRONTEND, file)}: ${key}`);
      }
      for (const m of source.matchAll(/\bt\(\s*`([a-zA-Z]+(?:\.[a-zA-Z]+)*)\.\$\{/g)) {
        if (![...bases.keys()].some((k) => k.startsWith(`${m[1]}.`)))
          unknown.push(`${relative(FRONTEND, file)}: ${m[1]}.*`);
      }
    }
    assert.deepEqual(unknown, []);
  });

  // The organisation's defaultLocale setting names the languages (i18n/languages.ts: data only).
  test('the console is English only: it imports no catalogue or translator', () => {
    const console = join(FRONTEND, 'console');
    const importing = sourceFiles(console).filter((file) =>
      /from '(react-i18next|i18next)'|\/i18n\/(?!languages\.js')/.test(readFileSync(file, 'utf8')),
    );
    assert.deepEqual(
      importing.map((f) => relative(FRONTEND, f)),
      [],
    );
  });
});

describe('choosing the language', () => {
  test('?lang= first; a value the pages do not speak is passed over', () => {
    assert.equal(chooseLanguage({ query: 'de', browser: ['fr-FR'], organisationDefault: 'es' }), 'de');
    assert.equal(chooseLanguage({ query: 'DE-at', browser: [], organisationDefault: null }), 'de');
    assert.equal(chooseLanguage({ query: 'xx', browser: ['fr-CA', 'en'], organisationDefault: 'es' }), 'fr');
    assert.equal(chooseLanguage({ query: '', browser: ['es-419'], organisationDefault: null }), 'es');
  });

  test("then the browser's languages in order, the first the pages speak", () => {
    assert.equal(
      chooseLanguage({ query: null, browser: ['nl-NL', 'fr', 'de'], organisationDefault: 'es' }),
      'fr',
    );
  });

  test("then the organisation's default, then en; undecided while that default is unknown", () => {
    assert.equal(chooseLanguage({ query: null, browser: ['nl', 'pt-BR'], organisationDefault: 'es' }), 'es');
    assert.equal(chooseLanguage({ query: 'xx', browser: [], organisationDefault: null }), 'en');
    assert.equal(chooseLanguage({ query: null, browser: ['ja'], organisationDefault: 'xx' }), 'en');
    assert.equal(chooseLanguage({ query: null, browser: ['ja'], organisationDefault: undefined }), null);
    assert.equal(chooseLanguage({ query: null, browser: ['de-CH'], organisationDefault: undefined }), 'de');
  });

  test("dates are written in the browser's own variant of the chosen language", () => {
    assert.equal(intlLocale('en', ['en-GB', 'de']), 'en-GB');
    assert.equal(intlLocale('de', ['en-GB', 'de-AT']), 'de-AT');
    assert.equal(intlLocale('fr', ['en-GB']), 'fr');
    assert.equal(languageOf('es_MX'), 'es');
    assert.equal(languageOf('english'), null);
  });
});

test("a text's <strong> parts are shown strong, and every value in it stays text", () => {
  const html = (text: string) => renderToStaticMarkup(createElement(Marked, { text }));
  assert.equal(
    html('Or wait for <strong>Monday</strong>: free'),
    'Or wait for <strong>Monday</strong>: free',
  );
  assert.equal(html('<strong>a<img src=x></strong> b'), '<strong>a&lt;img src=x&gt;</strong> b');
  assert.equal(html('no markup'), 'no markup');
});
