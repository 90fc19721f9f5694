// The waitlist on the booking page (joining for a time that is taken, the place in line) and on
// the manage page (an entry before its offer: status, place, leaving it).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { type RefObject, useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client.js';
import { usePublicCatalogue } from '../api/hooks.js';
import { queryKeys } from '../api/queryKeys.js';
import type { paths } from '../api/schema.js';
import type { ReservationBody } from '../api/types.js';
import { useCustomerErrors } from '../i18n/customer-errors.js';
import { useLanguageLink, useLocale } from '../i18n/customer-language.js';
import { type BookableTime, formatDateTime, formatTime, instantOf, visitorZone } from '../lib/time.js';
import { Branding } from './Branding.js';
import { ConfirmBox } from './ConfirmBox.js';
import { ZonePicker } from './ZonePicker.js';

/** A waitlist entry as joining answers it, with its manage link. */
export type JoinedEntry =
  paths['/api/public/organisations/{slug}/waitlist']['post']['responses'][201]['content']['application/json'];
/** A waitlist entry as its manage link reads it, with the organisation. */
export type WaitlistEntry =
  paths['/api/public/waitlist/{token}']['get']['responses'][200]['content']['application/json'];

/** Joins the waitlist for the time of `body`; 409 SLOT_AVAILABLE when it can be booked now. */
export function joinWaitlist(slug: string, body: ReservationBody): Promise<JoinedEntry> {
  return unwrap(api.POST('/api/public/organisations/{slug}/waitlist', { params: { path: { slug } }, body }));
}

const positionWords = (t: TFunction, position: number) =>
  position === 1 ? t('waitlist.first') : t('waitlist.number', { position });

/**
 * On a type with a waitlist: ask for a time that no slot offers because it is taken, typed as a
 * day and a time in the zone the page shows. The details form then joins its waitlist.
 */
export function WaitlistAsk(props: {
  zone: string;
  durationMinutes: number;
  resourceId: number | null;
  onAsk: (time: BookableTime) => void;
}) {
  const { zone, durationMinutes, resourceId, onAsk } = props;
  const id = useId();
  const [day, setDay] = useState('');
  const [clock, setClock] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { t } = useTranslation();
  function ask() {
    const start = instantOf(`${day}T${clock}`, zone);
    if (!start) return setError(t('waitlist.enterDayTime'));
    if (Date.parse(start) <= Date.now()) return setError(t('waitlist.future'));
    setError(null);
    const end = new Date(Date.parse(start) + durationMinutes * 60_000).toISOString();
    onAsk({ start, end, resourceId });
  }
  return (
    <details className="waitlist-ask">
      <summary>{t('waitlist.askSummary')}</summary>
      <p className="hint">{t('waitlist.askHint', { zone: zone.replaceAll('_', ' ') })}</p>
      <div className="field">
        <label htmlFor={`${id}-day`}>{t('waitlist.day')}</label>
        <input id={`${id}-day`} type="date" value={day} onChange={(e) => setDay(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-time`}>{t('waitlist.time')}</label>
        <input
          id={`${id}-time`}
          type="time"
          step={300}
          value={clock}
          onChange={(e) => setClock(e.target.value)}
        />
      </div>
      {error ? (
        <p role="alert" className="field-error">
          {error}
        </p>
      ) : null}
      <button type="button" className="secondary" onClick={ask}>
        {t('waitlist.waitFor')}
      </button>
    </details>
  );
}

/** The booking page after joining: the place in line and the manage link. */
export function WaitlistJoined(props: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  typeName: string;
  entry: JoinedEntry;
  zone: string;
}) {
  const { headingRef, typeName, entry, zone } = props;
  const { t } = useTranslation();
  const locale = useLocale();
  const link = useLanguageLink();
  return (
    <section aria-labelledby="waitlist-done-heading" className="done">
      <h2 id="waitlist-done-heading" ref={headingRef} tabIndex={-1}>
        {t('waitlist.joinedHeading')}
      </h2>
      <p>
        {typeName}, <strong>{formatDateTime(entry.startTime, zone, locale)}</strong> –{' '}
        {formatTime(entry.endTime, zone, locale)}.
      </p>
      {entry.position ? <p className="notice">{positionWords(t, entry.position)}</p> : null}
      <p>{t('waitlist.joinedBody')}</p>
      {entry.manageUrl ? (
        <p>
          {t('waitlist.keepLink')}{' '}
          <a href={link(entry.manageUrl)} className="manage-link">
            {t('waitlist.manageLink')}
          </a>
        </p>
      ) : null}
    </section>
  );
}

/** Leaving the waitlist, once asked whether to. */
function useLeaveWaitlist(token: string) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const leave = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/public/waitlist/{token}', { params: { path: { token } } })),
    onSuccess: (next) => {
      queryClient.setQueryData(queryKeys.waitlist(token), next);
      setConfirming(false);
    },
  });
  return { leave, confirming, setConfirming };
}

/** The manage page of a waitlist entry before (or after) its offer. */
export function WaitlistEntryView({ token, entry }: { token: string; entry: WaitlistEntry }) {
  const queryClient = useQueryClient();
  const [zone, setZone] = useState(visitorZone);
  const { t } = useTranslation();
  const locale = useLocale();
  const link = useLanguageLink();
  const organisation = entry.organisation;
  const slug = organisation.slug;
  const catalogue = usePublicCatalogue(slug);
  const what =
    catalogue.data?.resourceTypes.find((rt) => rt.id === entry.resourceTypeId)?.name ??
    t('waitlist.yourPlace');
  // Once an offer is made, the same link names its held reservation: show that instead.
  useEffect(() => {
    if (entry.status === 'offered')
      void queryClient.invalidateQueries({ queryKey: queryKeys.managed(token) });
  }, [entry.status, queryClient, token]);
  const open = entry.status === 'waiting' || entry.status === 'offered';
  return (
    <main className="page">
      <Branding organisation={organisation} title={t('waitlist.yourPlace')} />
      <p className={`status status-${entry.status}`}>
        <strong>{t('common.status')}</strong> {t(`waitlist.status.${entry.status}`)}
      </p>
      {entry.status === 'waiting' && entry.position ? (
        <p className="notice">{positionWords(t, entry.position)}</p>
      ) : null}
      <dl className="summary">
        <dt>{t('common.what')}</dt>
        <dd>{what}</dd>
        <dt>{t('common.when')}</dt>
        <dd>
          {formatDateTime(entry.startTime, zone, locale)} – {formatTime(entry.endTime, zone, locale)}{' '}
          <span className="hint">({zone.replaceAll('_', ' ')})</span>
        </dd>
      </dl>
      {entry.status === 'waiting' ? <p className="hint">{t('waitlist.waitingHint')}</p> : null}
      <ZonePicker zone={zone} organisationZone={organisation.timezone} onChange={setZone} />
      <LeaveWaitlist token={token} status={entry.status} open={open} />
      {!open && slug ? (
        <p>
          <a href={link(`/book/${slug}`)}>{t('common.makeNewBooking')}</a>
        </p>
      ) : null}
    </main>
  );
}

/** While the entry is open: "Leave the waitlist", then the question whether to. */
function LeaveWaitlist(props: { token: string; status: WaitlistEntry['status']; open: boolean }) {
  const { token, status, open } = props;
  const { leave, confirming, setConfirming } = useLeaveWaitlist(token);
  const { t } = useTranslation();
  const { errorText } = useCustomerErrors();
  return (
    <>
      {leave.isError ? (
        <div role="alert" className="error">
          <p>{errorText(leave.error)}</p>
        </div>
      ) : null}
      {open && !confirming ? (
        <div className="actions">
          <button type="button" className="secondary danger" onClick={() => setConfirming(true)}>
            {t('waitlist.leave')}
          </button>
        </div>
      ) : null}
      {open && confirming ? (
        <ConfirmBox
          title={t('waitlist.leaveTitle')}
          confirm={t('waitlist.leaveYes')}
          keep={t('waitlist.keepPlace')}
          pending={leave.isPending}
          onConfirm={() => leave.mutate()}
          onKeep={() => setConfirming(false)}
        >
          <p>{t(status === 'offered' ? 'waitlist.loseOffered' : 'waitlist.lose')}</p>
        </ConfirmBox>
      ) : null}
    </>
  );
}
