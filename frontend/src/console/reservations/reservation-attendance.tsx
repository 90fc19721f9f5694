// Attendance on a reservation's detail: whether its customer came, marked by staff once it has
// started (attended or no-show, changeable), and how often this customer came or did not.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '../../api/client.js';
import { messageOf } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, Reservation } from '../../api/types.js';
import { isStaff } from '../organisations/roles.js';

type Attendance = NonNullable<Reservation['attendance']>;

export const ATTENDANCE_WORDS: Record<Attendance, string> = {
  attended: 'Attended',
  no_show: 'No-show',
};

/** Marks the reservation; the answer replaces the cached one and refreshes lists and counts. */
function useMarkAttendance(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (status: Attendance) =>
      unwrap(
        authed.POST('/api/reservations/{id}/attendance', { params: { path: { id } }, body: { status } }),
      ),
    onSuccess: (r: Reservation) => {
      queryClient.setQueryData(queryKeys.reservation(id), r);
      return queryClient.invalidateQueries({ queryKey: queryKeys.reservations() });
    },
  });
}

/** How often the customer came and did not, in the organisation. */
function useAttendanceCounts(orgId: number, email: string) {
  return useQuery({
    queryKey: queryKeys.attendanceCounts(orgId, email),
    queryFn: () =>
      unwrap(
        authed.GET('/api/reservations/attendance-counts', { params: { query: { customerEmail: email } } }),
      ),
    enabled: email !== '',
  });
}

/** The attendance rows and, for staff on a confirmed reservation that has started, the buttons to mark it. */
export function AttendanceSection({ org, reservation: r }: { org: Organisation; reservation: Reservation }) {
  const mark = useMarkAttendance(r.id);
  const counts = useAttendanceCounts(org.id, r.customer.email);
  const markable = isStaff(org.role) && r.status === 'confirmed' && Date.parse(r.startTime) <= Date.now();
  return (
    <section aria-labelledby="attendance-heading">
      <h2 id="attendance-heading">Attendance</h2>
      <p id="reservation-attendance">
        {r.attendance ? ATTENDANCE_WORDS[r.attendance] : 'Not marked'}
        {counts.data ? (
          <span className="hint">
            {' '}
            · this customer: {counts.data.attended} attended, {counts.data.noShow} no-show
          </span>
        ) : null}
      </p>
      {markable ? (
        <div className="actions">
          {(['attended', 'no_show'] as const).map((status) => (
            <button
              key={status}
              type="button"
              className="secondary"
              disabled={mark.isPending || r.attendance === status}
              onClick={() => mark.mutate(status)}
            >
              Mark {ATTENDANCE_WORDS[status].toLowerCase()}
            </button>
          ))}
        </div>
      ) : null}
      {mark.isError ? (
        <div role="alert" className="error">
          {messageOf(mark.error)}
        </div>
      ) : null}
    </section>
  );
}
