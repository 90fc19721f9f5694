// The booking page's confirmation: what was booked, its reference, the calendar file, the web
// calendars' add-event links and the manage link the customer keeps to see, move or cancel it.
import type { RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { useLanguageLink } from '../i18n/customer-language.js';
import { CalendarLinks } from './CalendarLinks.js';
import { IcsLink, Summary } from './Reservation.js';

/** What a confirmation shows of a booked reservation. */
export interface BookedTime {
  id: number;
  reference?: string | null | undefined;
  startTime: string;
  endTime: string;
  priceAmount: number | null;
  priceCurrency: string | null;
}

export function BookingDone(props: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  organisationName: string;
  typeName: string;
  booked: BookedTime;
  manageUrl: string | null;
  zone: string;
}) {
  const { headingRef, organisationName, typeName, booked, manageUrl, zone } = props;
  const { t } = useTranslation();
  return (
    <section aria-labelledby="done-heading" className="done">
      <h2 id="done-heading" ref={headingRef} tabIndex={-1}>
        {t('book.doneHeading')}
      </h2>
      <p>{t('book.doneIntro', { organisation: organisationName })}</p>
      <Summary
        what={typeName}
        start={booked.startTime}
        end={booked.endTime}
        zone={zone}
        priceAmount={booked.priceAmount}
        priceCurrency={booked.priceCurrency}
      />
      {booked.reference ? (
        <p>
          {t('common.reference')} <strong className="reference">{booked.reference}</strong>
        </p>
      ) : null}
      <div className="actions">
        <IcsLink
          id={booked.id}
          start={booked.startTime}
          end={booked.endTime}
          summary={`${typeName} · ${organisationName}`}
          manageUrl={manageUrl}
        />
        <CalendarLinks
          start={booked.startTime}
          end={booked.endTime}
          title={`${typeName} · ${organisationName}`}
        />
      </div>
      {manageUrl ? <ManageLinkNote url={manageUrl} /> : null}
    </section>
  );
}

/** The manage link to keep, with what it is for. */
export function ManageLinkNote({ url }: { url: string }) {
  const { t } = useTranslation();
  const link = useLanguageLink();
  return (
    <p>
      {t('common.manageLinkNote')}{' '}
      <a href={link(url)} className="manage-link">
        {t('common.manageYourBooking')}
      </a>
    </p>
  );
}
