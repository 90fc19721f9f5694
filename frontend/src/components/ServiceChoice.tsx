// The booking page's first question: which service (type), and for a type with several
// resources, with whom (a resource, or anyone available where the type books from its pool).
import { type RefObject, useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { Catalogue, PublicType } from '../api/types.js';
import { useLocale } from '../i18n/customer-language.js';
import { formatPrice } from '../lib/price.js';

/** "60 min" as the locale writes a number of minutes. */
export function formatMinutes(minutes: number, locale: string): string {
  return new Intl.NumberFormat(locale, { style: 'unit', unit: 'minute', unitDisplay: 'short' }).format(
    minutes,
  );
}

/** A resource of the type, or `any`: the pool. */
export type ResourceChoiceValue = number | 'any';

export function ServiceChoice(props: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  types: PublicType[];
  type: PublicType | null;
  /** The chosen type's resources. */
  resources: Catalogue['resources'];
  resource: ResourceChoiceValue | null;
  onType: (id: number) => void;
  onResource: (value: ResourceChoiceValue) => void;
}) {
  const { headingRef, types, type, resources, resource } = props;
  const { t } = useTranslation();
  const locale = useLocale();
  return (
    <section aria-labelledby="what-heading">
      <h2 id="what-heading" ref={headingRef} tabIndex={-1}>
        {t('book.whatHeading')}
      </h2>
      <fieldset className="choices">
        <legend className="visually-hidden">{t('book.service')}</legend>
        {types.map((rt) => (
          <label key={rt.id} className="choice">
            <input
              type="radio"
              name="type"
              checked={type?.id === rt.id}
              onChange={() => props.onType(rt.id)}
            />
            <span>
              <strong>{rt.name}</strong>
              <span className="hint">
                {' '}
                {formatMinutes(rt.minBookingDuration, locale)}
                {rt.pricingEnabled && rt.priceAmount != null && rt.priceCurrency
                  ? ` · ${formatPrice(rt.priceAmount, rt.priceCurrency, locale)}`
                  : ''}
              </span>
              {rt.description ? <span className="choice-description">{rt.description}</span> : null}
            </span>
          </label>
        ))}
      </fieldset>
      {type && type.bookingMode !== 'POOL' && resources.length > 0 ? (
        <ResourceChoice type={type} resources={resources} value={resource} onChange={props.onResource} />
      ) : null}
    </section>
  );
}

function ResourceChoice(props: {
  type: PublicType;
  resources: Catalogue['resources'];
  value: ResourceChoiceValue | null;
  onChange: (value: ResourceChoiceValue) => void;
}) {
  const { type, resources, value, onChange } = props;
  const id = useId();
  const { t } = useTranslation();
  return (
    <div className="field">
      <label htmlFor={id}>{t('book.with')}</label>
      <select
        id={id}
        value={String(value ?? '')}
        onChange={(e) => onChange(e.target.value === 'any' ? 'any' : Number(e.target.value))}
      >
        {type.bookingMode !== 'SINGLE_RESOURCE' ? <option value="any">{t('book.anyone')}</option> : null}
        {resources.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name}
          </option>
        ))}
      </select>
    </div>
  );
}
