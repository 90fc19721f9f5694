// The booking page's first question: which service (type), and for a type with several
// resources, with whom (a resource, or anyone available where the type books from its pool).
import { type RefObject, useId } from 'react';
import type { Catalogue, PublicType } from '../api/types.js';
import { formatPrice } from './Reservation.js';

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
  return (
    <section aria-labelledby="what-heading">
      <h2 id="what-heading" ref={headingRef} tabIndex={-1}>
        What would you like to book?
      </h2>
      <fieldset className="choices">
        <legend className="visually-hidden">Service</legend>
        {types.map((t) => (
          <label key={t.id} className="choice">
            <input type="radio" name="type" checked={type?.id === t.id} onChange={() => props.onType(t.id)} />
            <span>
              <strong>{t.name}</strong>
              <span className="hint">
                {' '}
                {t.minBookingDuration} min
                {t.pricingEnabled && t.priceAmount != null && t.priceCurrency
                  ? ` · ${formatPrice(t.priceAmount, t.priceCurrency)}`
                  : ''}
              </span>
              {t.description ? <span className="choice-description">{t.description}</span> : null}
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
  return (
    <div className="field">
      <label htmlFor={id}>With</label>
      <select
        id={id}
        value={String(value ?? '')}
        onChange={(e) => onChange(e.target.value === 'any' ? 'any' : Number(e.target.value))}
      >
        {type.bookingMode !== 'SINGLE_RESOURCE' ? <option value="any">Anyone available</option> : null}
        {resources.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name}
          </option>
        ))}
      </select>
    </div>
  );
}
