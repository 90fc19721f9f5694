// The customer pages' language: chosen from `?lang=`, the browser's languages and the
// organisation's default (languages.ts), its catalogue loaded on demand (one chunk per
// language, so a page ships only the one it shows), `<html lang>` set while the page is shown.
// The console never renders this: it stays English and carries none of it.
import type { i18n } from 'i18next';
import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { I18nextProvider } from 'react-i18next';
import { useSearchParams } from 'react-router';
import {
  chooseLanguage,
  FAILED_WORDS,
  intlLocale,
  type Language,
  LOADING_WORDS,
  languageOf,
} from './languages.js';

/** Each language's catalogue, a chunk of its own that loads when first asked for. */
const CATALOGUES: Record<Language, () => Promise<{ default: object }>> = {
  en: () => import('./locales/en/pages.json'),
  de: () => import('./locales/de/pages.json'),
  fr: () => import('./locales/fr/pages.json'),
  es: () => import('./locales/es/pages.json'),
};

const instances = new Map<Language, Promise<i18n>>();

/** The translator of `language`, made once per page load. */
function translatorOf(language: Language): Promise<i18n> {
  let found = instances.get(language);
  if (!found) {
    // i18next itself loads beside the catalogue, so the console's first load carries neither.
    found = Promise.all([CATALOGUES[language](), import('i18next')]).then(
      async ([catalogue, { createInstance }]) => {
        const instance = createInstance();
        await instance.init({
          lng: language,
          // Every language holds every key (test/i18n/catalogues.test.ts): no fallback to load.
          fallbackLng: false,
          ns: 'pages',
          defaultNS: 'pages',
          resources: { [language]: { pages: catalogue.default } },
          // React escapes what it renders; escaping here too would show `&amp;`.
          interpolation: { escapeValue: false },
        });
        return instance;
      },
    );
    // A chunk that failed to load (a lost connection) is asked for again next time.
    found.catch(() => instances.delete(language));
    instances.set(language, found);
  }
  return found;
}

interface CustomerLanguageValue {
  language: Language;
  /** The BCP 47 locale `Intl` writes dates, numbers and prices in. */
  locale: string;
  /** Shows the page in `language` (kept in the address as `?lang=`). */
  setLanguage: (language: Language) => void;
}

const CustomerLanguageContext = createContext<CustomerLanguageValue>({
  language: 'en',
  locale: 'en',
  setLanguage: () => {},
});

/** The chosen language, the locale of its dates and numbers, and switching. */
export const useCustomerLanguage = () => useContext(CustomerLanguageContext);
/** The locale the page writes dates, times, numbers and prices in. */
export const useLocale = () => useContext(CustomerLanguageContext).locale;

/**
 * Links to another customer page in the language asked for: where this page's address names
 * one (`?lang=`, which the switcher sets), the link names it too; else the next page chooses as
 * this one did.
 */
export function useLanguageLink(): (url: string) => string {
  const [search] = useSearchParams();
  const asked = languageOf(search.get('lang'));
  return (url) => {
    if (!asked) return url;
    const link = new URL(url, location.origin);
    link.searchParams.set('lang', asked);
    return link.origin === location.origin && !/^https?:/.test(url)
      ? `${link.pathname}${link.search}`
      : link.href;
  };
}

const browserLanguages = (): readonly string[] =>
  typeof navigator === 'undefined'
    ? []
    : navigator.languages?.length
      ? navigator.languages
      : [navigator.language];

/** The translator of the chosen language once loaded; the previous one meanwhile (no flash on a switch). */
function useTranslator(language: Language | null) {
  const [loaded, setLoaded] = useState<{ language: Language; instance: i18n } | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!language) return;
    let live = true;
    translatorOf(language).then(
      (instance) => {
        if (!live) return;
        setLoaded({ language, instance });
        setFailed(false);
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [language]);
  return { loaded, failed };
}

/**
 * Shows `children` in the language chosen for this visitor. `organisationDefault`: the
 * organisation's `defaultLocale` (undefined while it loads; null where the page has none).
 */
export function CustomerLanguage(props: {
  organisationDefault: string | null | undefined;
  children: ReactNode;
}) {
  const [search, setSearch] = useSearchParams();
  const browser = browserLanguages();
  const language = chooseLanguage({
    query: search.get('lang'),
    browser,
    organisationDefault: props.organisationDefault,
  });
  const { loaded, failed } = useTranslator(language);
  const shown = loaded?.language ?? null;
  useEffect(() => {
    if (!shown) return;
    document.documentElement.lang = shown;
    return () => {
      document.documentElement.lang = 'en';
    };
  }, [shown]);
  if (!loaded) {
    const words = LOADING_WORDS[language ?? languageOf(browser[0]) ?? 'en'];
    return failed ? <p role="alert">{FAILED_WORDS[language ?? 'en']}</p> : <p className="loading">{words}</p>;
  }
  const value: CustomerLanguageValue = {
    language: loaded.language,
    locale: intlLocale(loaded.language, browser),
    setLanguage: (next) =>
      setSearch(
        (current) => {
          const next_ = new URLSearchParams(current);
          next_.set('lang', next);
          return next_;
        },
        { replace: true, preventScrollReset: true },
      ),
  };
  return (
    <CustomerLanguageContext.Provider value={value}>
      <I18nextProvider i18n={loaded.instance}>{props.children}</I18nextProvider>
    </CustomerLanguageContext.Provider>
  );
}
