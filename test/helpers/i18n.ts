// The customer pages' translator for a test that renders a component on the server
// (renderToStaticMarkup): the language's catalogue from frontend/src/i18n/locales, as the pages load it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInstance, type i18n } from 'i18next';
import { createElement, type ReactElement } from 'react';
import { I18nextProvider } from 'react-i18next';
import type { Language } from '../../frontend/src/i18n/languages.js';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';

export function translatorFor(language: Language): i18n {
  const catalogue = JSON.parse(
    readFileSync(join(PROJECT_ROOT, 'frontend', 'src', 'i18n', 'locales', language, 'pages.json'), 'utf8'),
  );
  const instance = createInstance();
  void instance.init({
    lng: language,
    fallbackLng: false,
    ns: 'pages',
    defaultNS: 'pages',
    resources: { [language]: { pages: catalogue } },
    interpolation: { escapeValue: false },
    initAsync: false,
  });
  return instance;
}

/** `element` inside the translator of `language`. */
export const inLanguage = (language: Language, element: ReactElement) =>
  createElement(I18nextProvider, { i18n: translatorFor(language) }, element);
