import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { PublicOrganisation } from '../api/types.js';
import { LanguageSwitcher } from '../i18n/LanguageSwitcher.js';
import { brandColours } from '../lib/colour.js';

/** Sets the organisation's colour on the page (CSS variables, through the CSSOM: the CSP forbids inline styles). */
export function useBrandColour(colour: string | null | undefined) {
  useEffect(() => {
    const { brand, onBrand } = brandColours(colour);
    const root = document.documentElement.style;
    root.setProperty('--brand', brand);
    root.setProperty('--on-brand', onBrand);
  }, [colour]);
}

/**
 * The organisation's header on the customer pages: the language switcher, then logo, headline
 * and description, as its booking branding sets them.
 */
export function Branding({ organisation, title }: { organisation: PublicOrganisation; title?: string }) {
  const { t } = useTranslation();
  useBrandColour(organisation.color);
  useEffect(() => {
    document.title = title ? `${title} · ${organisation.name}` : organisation.name;
  }, [organisation.name, title]);
  const description = organisation.publicBookingDescription ?? organisation.description;
  return (
    <>
      <LanguageSwitcher />
      <header className="brand">
        {organisation.logoUrl ? (
          <img className="brand-logo" src={organisation.logoUrl} alt="" width={56} height={56} />
        ) : null}
        <div>
          <p className="brand-name">{organisation.name}</p>
          <h1>
            {title ?? organisation.publicBookingHeadline ?? t('book.bookWith', { name: organisation.name })}
          </h1>
          {description && !title ? <p className="brand-description">{description}</p> : null}
        </div>
      </header>
    </>
  );
}
