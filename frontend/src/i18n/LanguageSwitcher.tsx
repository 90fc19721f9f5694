import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { useCustomerLanguage } from './customer-language.js';
import { LANGUAGE_NAMES, LANGUAGES, type Language } from './languages.js';

/** The language switcher of the customer pages: each language named in its own words. */
export function LanguageSwitcher() {
  const { t } = useTranslation();
  const { language, setLanguage } = useCustomerLanguage();
  const id = useId();
  return (
    <div className="language">
      <label htmlFor={id}>{t('common.language')}</label>
      <select id={id} value={language} onChange={(e) => setLanguage(e.target.value as Language)}>
        {LANGUAGES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </div>
  );
}
