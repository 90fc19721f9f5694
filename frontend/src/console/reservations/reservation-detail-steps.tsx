// The two steps a reservation's detail opens: cancelling it and moving it. A refused move offers
// the API's alternatives as buttons; staff may go past the type's rules.
import { type FormEvent, useState } from 'react';
import { alternativesOf, errorText } from '../../api/errors.js';
import type { Reservation } from '../../api/types.js';
import { formatDateTime, formatTime, instantOf, localOf } from '../../lib/time.js';
import { Field } from '../ui.js';
import { BusyHosts } from './busy-hosts.js';
import type { MoveTarget, ReservationActions } from './use-reservation-actions.js';

export function CancelBox(props: {
  actions: ReservationActions;
  ruleRefusal: (error: unknown) => boolean;
  onKeep: () => void;
}) {
  const { cancel } = props.actions;
  return (
    <section className="confirm-box" aria-labelledby="cancel-heading">
      <h2 id="cancel-heading">Cancel this reservation?</h2>
      <p>The customer is told by email; a paid booking is refunded as the type's rules say.</p>
      {cancel.isError ? (
        <div role="alert" className="error">
          <p>{errorText(cancel.error)}</p>
          {props.ruleRefusal(cancel.error) ? (
            <button type="button" className="secondary danger" onClick={() => cancel.mutate(true)}>
              Cancel anyway, past the rules
            </button>
          ) : null}
        </div>
      ) : null}
      <div className="actions">
        <button
          type="button"
          className="primary danger"
          disabled={cancel.isPending}
          onClick={() => cancel.mutate(false)}
        >
          Yes, cancel it
        </button>
        <button type="button" className="secondary" onClick={props.onKeep}>
          Keep it
        </button>
      </div>
    </section>
  );
}

/** The new start as typed (a local time in `zone`) and, when it is one, the move to it at the same length. */
function useNewStart(r: Reservation, zone: string) {
  const [newStart, setNewStart] = useState(() => localOf(r.startTime, zone));
  const length = Date.parse(r.endTime) - Date.parse(r.startTime);
  const typed = instantOf(newStart, zone);
  const target: MoveTarget | null = typed
    ? { start: typed, end: new Date(Date.parse(typed) + length).toISOString(), resourceId: r.resourceId }
    : null;
  return { newStart, setNewStart, typed, target };
}

export function RescheduleBox(props: {
  reservation: Reservation;
  zone: string;
  actions: ReservationActions;
  ruleRefusal: (error: unknown) => boolean;
  resourceName: (id: number | null) => string | null;
  onKeep: () => void;
}) {
  const { reservation: r, zone, ruleRefusal } = props;
  const { reschedule } = props.actions;
  const { newStart, setNewStart, typed, target } = useNewStart(r, zone);
  return (
    <section className="confirm-box" aria-labelledby="move-heading">
      <h2 id="move-heading">Move to another time</h2>
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (target) reschedule.mutate(target);
        }}
      >
        <Field
          name="startTime"
          label={`New start (${zone.replaceAll('_', ' ')} time)`}
          type="datetime-local"
          value={newStart}
          error={newStart && !typed ? 'Enter a date and a time.' : undefined}
          hint={target ? `Until ${formatTime(target.end, zone)}, the same length as now.` : undefined}
          onChange={setNewStart}
        />
        {reschedule.isError ? (
          <div role="alert" className="error">
            <p>{errorText(reschedule.error)}</p>
            <BusyHosts error={reschedule.error} />
            <Alternatives {...props} />
            {ruleRefusal(reschedule.error) && target ? (
              <button
                type="button"
                className="secondary"
                onClick={() => reschedule.mutate({ ...target, overrideRules: true })}
              >
                Move anyway, past the rules
              </button>
            ) : null}
          </div>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={!target || reschedule.isPending}>
            Move it
          </button>
          <button type="button" className="secondary" onClick={props.onKeep}>
            Keep the current time
          </button>
        </div>
      </form>
    </section>
  );
}

/** The free times the API offered instead of a refused one, each a button that moves there. */
function Alternatives(props: {
  reservation: Reservation;
  zone: string;
  actions: ReservationActions;
  resourceName: (id: number | null) => string | null;
}) {
  const { reservation: r, zone, resourceName } = props;
  const { reschedule } = props.actions;
  const alternatives = alternativesOf(reschedule.error);
  if (alternatives.length === 0) return null;
  const move = (to: MoveTarget) => reschedule.mutate(to);
  return (
    <>
      <p>These times are free instead:</p>
      <ul className="alternatives">
        {alternatives.map((a) => (
          <li key={`${a.startTime}-${a.resourceId}`}>
            <button
              type="button"
              className="time"
              onClick={() => move({ start: a.startTime, end: a.endTime, resourceId: a.resourceId })}
            >
              {formatDateTime(a.startTime, zone)}
              {a.resourceId !== null && a.resourceId !== r.resourceId
                ? ` (${resourceName(a.resourceId)})`
                : ''}
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}
