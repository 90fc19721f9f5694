// The waitlist on the booking page (joining for a time that is taken, the place in line) and on
// the manage page (an entry before its offer: status, place, leaving it).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type RefObject, useEffect, useId, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import { errorText } from '../api/errors.js';
import { usePublicCatalogue } from '../api/hooks.js';
import { queryKeys } from '../api/queryKeys.js';
import type { paths } from '../api/schema.js';
import type { ReservationBody } from '../api/types.js';
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

const ENTRY_WORDS: Record<WaitlistEntry['status'], string> = {
  waiting: 'On the waitlist',
  offered: 'The time is free for you: confirm it before the offer runs out',
  accepted: 'Accepted: the time is booked for you',
  expired: 'The offer ran out or was let go',
  left: 'You left the waitlist',
};

/** Joins the waitlist for the time of `body`; 409 SLOT_AVAILABLE when it can be booked now. */
export function joinWaitlist(slug: string, body: ReservationBody): Promise<JoinedEntry> {
  return unwrap(api.POST('/api/public/organisations/{slug}/waitlist', { params: { path: { slug } }, body }));
}

const positionWords = (position: number) =>
  position === 1
    ? 'You are first in line for this time.'
    : `You are number ${position} in line for this time.`;

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
  function ask() {
    const start = instantOf(`${day}T${clock}`, zone);
    if (!start) return setError('Enter a day and a time.');
    if (Date.parse(start) <= Date.now()) return setError('Choose a time in the future.');
    setError(null);
    const end = new Date(Date.parse(start) + durationMinutes * 60_000).toISOString();
    onAsk({ start, end, resourceId });
  }
  return (
    <details className="waitlist-ask">
      <summary>The time you want is taken? Join its waitlist</summary>
      <p className="hint">
        Fully booked times are not shown above. Ask for one here (in {zone.replaceAll('_', ' ')}): if it
        becomes free, it is held for you.
      </p>
      <div className="field">
        <label htmlFor={`${id}-day`}>Day</label>
        <input id={`${id}-day`} type="date" value={day} onChange={(e) => setDay(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-time`}>Time</label>
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
        Wait for this time
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
  return (
    <section aria-labelledby="waitlist-done-heading" className="done">
      <h2 id="waitlist-done-heading" ref={headingRef} tabIndex={-1}>
        You are on the waitlist
      </h2>
      <p>
        {typeName}, <strong>{formatDateTime(entry.startTime, zone)}</strong> –{' '}
        {formatTime(entry.endTime, zone)}.
      </p>
      {entry.position ? <p className="notice">{positionWords(entry.position)}</p> : null}
      <p>
        If the time becomes free, we hold it for you and tell you by email; you then confirm it from your link
        before the offer runs out. Nothing is booked until you confirm.
      </p>
      {entry.manageUrl ? (
        <p>
          Keep this link to see your place or leave the waitlist:{' '}
          <a href={entry.manageUrl} className="manage-link">
            Manage your waitlist place
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
  const organisation = entry.organisation;
  const slug = organisation.slug;
  const catalogue = usePublicCatalogue(slug);
  const what =
    catalogue.data?.resourceTypes.find((t) => t.id === entry.resourceTypeId)?.name ?? 'Your waitlist place';
  // Once an offer is made, the same link names its held reservation: show that instead.
  useEffect(() => {
    if (entry.status === 'offered')
      void queryClient.invalidateQueries({ queryKey: queryKeys.managed(token) });
  }, [entry.status, queryClient, token]);
  const open = entry.status === 'waiting' || entry.status === 'offered';
  return (
    <main className="page">
      <Branding organisation={organisation} title="Your waitlist place" />
      <p className={`status status-${entry.status}`}>
        <strong>Status:</strong> {ENTRY_WORDS[entry.status]}
      </p>
      {entry.status === 'waiting' && entry.position ? (
        <p className="notice">{positionWords(entry.position)}</p>
      ) : null}
      <dl className="summary">
        <dt>What</dt>
        <dd>{what}</dd>
        <dt>When</dt>
        <dd>
          {formatDateTime(entry.startTime, zone)} – {formatTime(entry.endTime, zone)}{' '}
          <span className="hint">({zone.replaceAll('_', ' ')})</span>
        </dd>
      </dl>
      {entry.status === 'waiting' ? (
        <p className="hint">
          If the time becomes free, we hold it for you and email you; this page then lets you confirm it.
        </p>
      ) : null}
      <ZonePicker zone={zone} organisationZone={organisation.timezone} onChange={setZone} />
      <LeaveWaitlist token={token} status={entry.status} open={open} />
      {!open && slug ? (
        <p>
          <a href={`/book/${slug}`}>Make a new booking</a>
        </p>
      ) : null}
    </main>
  );
}

/** While the entry is open: "Leave the waitlist", then the question whether to. */
function LeaveWaitlist(props: { token: string; status: WaitlistEntry['status']; open: boolean }) {
  const { token, status, open } = props;
  const { leave, confirming, setConfirming } = useLeaveWaitlist(token);
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
            Leave the waitlist
          </button>
        </div>
      ) : null}
      {open && confirming ? (
        <ConfirmBox
          title="Leave the waitlist?"
          confirm="Yes, leave it"
          keep="Keep my place"
          pending={leave.isPending}
          onConfirm={() => leave.mutate()}
          onKeep={() => setConfirming(false)}
        >
          <p>You lose your place in line{status === 'offered' ? ' and the time held for you' : ''}.</p>
        </ConfirmBox>
      ) : null}
    </>
  );
}
