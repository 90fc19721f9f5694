// A reservation's detail: what, when and for whom (the customer's answers:
// reservation-customer.tsx), with cancel and reschedule (reservation-detail-steps.tsx) and
// attendance (reservation-attendance.tsx).
import { useState } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { useReservation } from '../../api/hooks.js';
import type { Organisation, Reservation } from '../../api/types.js';
import { formatPrice } from '../../lib/price.js';
import { dayKey, formatDateTime, formatTime } from '../../lib/time.js';
import { ASSIGNMENT_NAMES } from '../catalogue/type-form-data.js';
import { isStaff } from '../organisations/roles.js';
import { LoadError, Loading } from '../ui.js';
import { mondayOf } from '../week.js';
import { AttendanceSection } from './reservation-attendance.js';
import { CustomerRows } from './reservation-customer.js';
import { statusWords, useCatalogue, whatOf } from './reservation-data.js';
import { CancelBox, RescheduleBox } from './reservation-detail-steps.js';
import { type ReservationActions, useReservationActions } from './use-reservation-actions.js';

type Mode = 'view' | 'cancel' | 'reschedule';

export function Detail(props: { org: Organisation }) {
  const { org } = props;
  const zone = org.timezone;
  const id = Number(useParams().id);
  const booked = (useLocation().state as { booked?: boolean } | null)?.booked === true;
  const catalogue = useCatalogue();
  const reservation = useReservation(id);
  const [mode, setMode] = useState<Mode>('view');
  const actions = useReservationActions(id, reservation.data?.resourceId, () => setMode('view'));
  const { cancel, reschedule } = actions;
  if (reservation.isPending) return <Loading />;
  if (reservation.isError)
    return (
      <main className="page">
        <LoadError error={reservation.error} />
        <Link to="/app/reservations">All reservations</Link>
      </main>
    );
  const r = reservation.data;
  const live = r.status === 'held' || r.status === 'pending_payment' || r.status === 'confirmed';
  const ruleRefusal = (e: unknown) =>
    isStaff(org.role) && e instanceof Error && 'code' in e && e.code === 'BOOKING_RULE_VIOLATED';
  return (
    <main className="page">
      <p>
        <Link to={`/app/reservations?week=${mondayOf(dayKey(r.startTime, zone))}`}>Back to the week</Link>
      </p>
      <h1>Reservation {r.reference}</h1>
      {booked && mode === 'view' && !cancel.isSuccess && !reschedule.isSuccess ? (
        <p className="notice" role="status">
          Booked. The customer is told by email.
        </p>
      ) : null}
      <Facts reservation={r} zone={zone} catalogue={catalogue} />
      {r.status === 'confirmed' || r.attendance ? <AttendanceSection org={org} reservation={r} /> : null}
      {(cancel.isSuccess || reschedule.isSuccess) && mode === 'view' ? (
        <p className="notice" role="status">
          {cancel.isSuccess ? 'The reservation is cancelled.' : 'The reservation was moved.'}
        </p>
      ) : null}
      {live && mode === 'view' ? <DetailButtons actions={actions} onMode={setMode} /> : null}
      {mode === 'cancel' ? (
        <CancelBox actions={actions} ruleRefusal={ruleRefusal} onKeep={() => setMode('view')} />
      ) : null}
      {mode === 'reschedule' ? (
        <RescheduleBox
          reservation={r}
          zone={zone}
          actions={actions}
          ruleRefusal={ruleRefusal}
          resourceName={catalogue.resourceName}
          onKeep={() => setMode('view')}
        />
      ) : null}
    </main>
  );
}

function DetailButtons({ actions, onMode }: { actions: ReservationActions; onMode: (mode: Mode) => void }) {
  return (
    <div className="actions">
      <button
        type="button"
        className="secondary"
        onClick={() => {
          actions.reschedule.reset();
          onMode('reschedule');
        }}
      >
        Reschedule
      </button>
      <button
        type="button"
        className="secondary danger"
        onClick={() => {
          actions.cancel.reset();
          onMode('cancel');
        }}
      >
        Cancel reservation
      </button>
    </div>
  );
}

const sourceWords: Record<Reservation['source'], string> = {
  api: 'by staff or the API',
  public_slug: 'on the booking page',
  public_token: 'with a booking link',
  mcp: 'by an agent',
};

/** What, when, for whom, and the reservation's price, payment and history. */
function Facts(props: {
  reservation: Reservation;
  zone: string;
  catalogue: ReturnType<typeof useCatalogue>;
}) {
  const { reservation: r, zone, catalogue } = props;
  const type = catalogue.types.find((t) => t.id === r.resourceTypeId);
  const what = whatOf(r, catalogue).join(' · ');
  return (
    <dl className="summary">
      <dt>Reference</dt>
      <dd id="reservation-reference">{r.reference}</dd>
      <dt>Status</dt>
      <dd className={`status-${r.status}`}>{statusWords(r.status)}</dd>
      <dt>What</dt>
      <dd id="reservation-what">{what || '—'}</dd>
      <dt>When</dt>
      <dd>
        {formatDateTime(r.startTime, zone)} – {formatTime(r.endTime, zone)}{' '}
        <span className="hint">({zone.replaceAll('_', ' ')})</span>
      </dd>
      <CustomerRows
        customer={r.customer}
        questions={catalogue.typesLoaded ? (type?.questions ?? []) : null}
      />
      {r.assignment ? (
        <FragmentRow
          term="Assigned"
          value={`${catalogue.resourceName(r.assignment.resourceId)} (${ASSIGNMENT_NAMES[r.assignment.strategy]}): ${r.assignment.reason}`}
        />
      ) : null}
      {r.notes ? <FragmentRow term="Notes" value={r.notes} /> : null}
      {r.priceAmount != null && r.priceCurrency ? (
        <FragmentRow term="Price" value={formatPrice(r.priceAmount, r.priceCurrency)} />
      ) : null}
      {r.payment ? <FragmentRow term="Payment" value={r.payment.status.replace('_', ' ')} /> : null}
      <FragmentRow term="Booked" value={`${formatDateTime(r.createdAt, zone)} (${sourceWords[r.source]})`} />
      {r.cancelledAt ? <FragmentRow term="Cancelled" value={formatDateTime(r.cancelledAt, zone)} /> : null}
    </dl>
  );
}

function FragmentRow(props: { term: string; value: string }) {
  return (
    <>
      <dt>{props.term}</dt>
      <dd>{props.value}</dd>
    </>
  );
}
