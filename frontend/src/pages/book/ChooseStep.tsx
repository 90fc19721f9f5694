// The booking page's first step: the service, the resource, the zone and a free time (or, where
// the type has a waitlist, a taken time to wait for).
import type { RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { Catalogue, PublicType } from '../../api/types.js';
import { ServiceChoice } from '../../components/ServiceChoice.js';
import { SlotPicker, type Target } from '../../components/SlotPicker.js';
import { WaitlistAsk } from '../../components/Waitlist.js';
import { ZonePicker } from '../../components/ZonePicker.js';
import { useLocale } from '../../i18n/customer-language.js';
import { formatDateTime } from '../../lib/time.js';
import type { BookingChoice } from './use-booking-flow.js';

export function ChooseStep(props: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  slug: string;
  catalogue: Catalogue;
  choice: BookingChoice;
  /** On to the details; `waitOnly`: to join the waitlist for a taken time. */
  onContinue: (waitOnly: boolean) => void;
}) {
  const { headingRef, slug, catalogue, choice: c, onContinue } = props;
  const { type, target } = c;
  const { t } = useTranslation();
  return (
    <>
      <ServiceChoice
        headingRef={headingRef}
        types={catalogue.resourceTypes}
        type={type}
        resources={c.typeResources}
        resource={c.choice}
        onType={c.chooseType}
        onResource={c.chooseResource}
      />
      {type && !target ? <p className="empty">{t('book.serviceUnavailable')}</p> : null}
      {type && target ? (
        <WhenQuestion
          slug={slug}
          organisationZone={catalogue.organisation.timezone}
          type={type}
          target={target}
          choice={c}
          onContinue={onContinue}
        />
      ) : null}
    </>
  );
}

/** "When?": the zone, the free times of the type's resource or pool, and the waitlist's ask. */
function WhenQuestion(props: {
  slug: string;
  organisationZone: string;
  type: PublicType;
  target: Target;
  choice: BookingChoice;
  onContinue: (waitOnly: boolean) => void;
}) {
  const { slug, organisationZone, type, target, choice: c, onContinue } = props;
  const { t } = useTranslation();
  const locale = useLocale();
  return (
    <section aria-labelledby="when-heading">
      <h2 id="when-heading">{t('book.whenHeading')}</h2>
      <ZonePicker zone={c.zone} organisationZone={organisationZone} onChange={c.setZone} />
      <SlotPicker
        key={JSON.stringify(target)}
        slug={slug}
        target={target}
        durationMinutes={type.minBookingDuration}
        zone={c.zone}
        selected={c.time?.start ?? null}
        onSelect={c.setTime}
      />
      {type.waitlistEnabled ? (
        <WaitlistAsk
          zone={c.zone}
          durationMinutes={type.minBookingDuration}
          resourceId={c.choice === 'any' ? null : c.choice}
          onAsk={(at) => {
            c.setTime(at);
            onContinue(true);
          }}
        />
      ) : null}
      {c.time ? (
        <div className="actions sticky">
          <p>
            <strong>{formatDateTime(c.time.start, c.zone, locale)}</strong>
          </p>
          <button type="button" className="primary" onClick={() => onContinue(false)}>
            {t('book.continue')}
          </button>
        </div>
      ) : null}
    </section>
  );
}
