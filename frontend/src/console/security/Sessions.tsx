// Signed-in sessions: each sign-in's device (from its User-Agent), when it began and was last
// used, "this device" for the current one; end one, or every one but this.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useSessions } from '../../api/account-hooks.js';
import { noBody, unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { SignedInSession } from '../../api/types.js';
import { Status } from '../account-ui.js';
import { LoadError, Loading } from '../ui.js';
import { deviceOf } from './device.js';

const when = (iso: string) => new Date(iso).toLocaleString();

export function Sessions() {
  const queryClient = useQueryClient();
  const list = useSessions();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.sessions() });
  const end = useMutation({
    mutationFn: (id: number) =>
      unwrap(authed.DELETE('/api/auth/sessions/{id}', { params: { path: { id } } }).then(noBody)),
    onSettled: refresh,
  });
  const endOthers = useMutation({
    mutationFn: () => unwrap(authed.POST('/api/auth/sessions/revoke-others').then(noBody)),
    onSettled: refresh,
  });
  const others = list.data?.filter((s) => !s.current).length ?? 0;
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Signed-in sessions</h2>
      {list.isPending ? <Loading /> : null}
      {list.isError ? <LoadError error={list.error} /> : null}
      {list.data ? (
        <ul className="record-list" aria-label="Your sessions">
          {list.data.map((s) => (
            <SessionRow key={s.id} session={s} ending={end.isPending} onEnd={() => end.mutate(s.id)} />
          ))}
        </ul>
      ) : null}
      {end.isError ? <LoadError error={end.error} /> : null}
      {endOthers.isError ? <LoadError error={endOthers.error} /> : null}
      <Status>
        {end.isSuccess && !end.isPending ? 'Session ended.' : ''}
        {endOthers.isSuccess && !endOthers.isPending ? 'Every other session was ended.' : ''}
      </Status>
      {others > 0 ? (
        <div className="actions">
          <button
            type="button"
            className="danger secondary"
            disabled={endOthers.isPending}
            onClick={() => endOthers.mutate()}
          >
            End all other sessions
          </button>
        </div>
      ) : null}
    </section>
  );
}

function SessionRow(props: { session: SignedInSession; ending: boolean; onEnd: () => void }) {
  const { session: s } = props;
  return (
    <li>
      <div>
        <strong>{deviceOf(s.userAgent)}</strong>{' '}
        {s.current ? <span className="badge">This device</span> : null}
        <div className="hint">
          Signed in {when(s.createdAt)}, last used {when(s.lastUsedAt)}
        </div>
      </div>
      {s.current ? null : (
        <button
          type="button"
          className="secondary"
          aria-label={`End the session of ${deviceOf(s.userAgent)}, signed in ${when(s.createdAt)}`}
          disabled={props.ending}
          onClick={props.onEnd}
        >
          End
        </button>
      )}
    </li>
  );
}
