// The picker's words in the language the host names (its context's `locale`), as the customer
// pages choose theirs (i18n/languages.ts): every catalogue is inside the picker's one document,
// which can fetch nothing of its own; English where the host names none the pages speak.
import { createInstance, type TFunction } from 'i18next';
import { type Language, languageOf } from '../../i18n/languages.js';
import de from './locales/de/picker.json' with { type: 'json' };
import en from './locales/en/picker.json' with { type: 'json' };
import es from './locales/es/picker.json' with { type: 'json' };
import fr from './locales/fr/picker.json' with { type: 'json' };

const CATALOGUES: Record<Language, object> = { en, de, fr, es };
const translators = new Map<Language, TFunction>();

/** The picker's translator for the host's `locale`, made once a language. */
export function wordsFor(locale: string | undefined): TFunction {
  const language = languageOf(locale) ?? 'en';
  let t = translators.get(language);
  if (!t) {
    const instance = createInstance();
    // Synchronous: the catalogue is here, nothing to load.
    void instance.init({
      lng: language,
      fallbackLng: false,
      initAsync: false,
      ns: 'picker',
      defaultNS: 'picker',
      resources: { [language]: { picker: CATALOGUES[language] } },
      // React escapes what it renders.
      interpolation: { escapeValue: false },
    });
    t = instance.t;
    translators.set(language, t);
  }
  return t;
}
