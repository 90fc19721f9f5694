// The approvals inbox: calls the person's agents asked them to approve. Pending ones first, each
// with its summary, agent and expiry, approved or denied here with the outcome shown (executed
// with what the call answered, or failed with its error); other statuses by filter. One
// approval's page shows the stored call exactly as it will run.
import { useInfiniteQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Link, Route, Routes, useSearchParams } from 'react-router';
import { unwrap } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Approval, ApprovalStatus } from '../../api/types.js';
import { formatDateTime } from '../../lib/time.js';
import { APPROVAL_STATUSES, approvalStatusWords, personZone, toolNameOf } from '../agents/agent-values.js';
import { LoadError, Loading, Select } from '../ui.js';
import { ApprovalPage } from './ApprovalPage.js';
import { type Decision, Outcome, StatusBadge, useAgentNames, useDecide } from './approval-parts.js';

export default function Approvals() {
  return (
    <Routes>
      <Route index element={<Inbox />} />
      <Route path=":id" element={<ApprovalPage />} />
    </Routes>
  );
}

const listQuery = (status: ApprovalStatus | undefined, cursor: string | undefined) =>
  unwrap(
    authed.GET('/api/approvals', {
      params: { query: { limit: 50, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) } },
    }),
  );

function useApprovalList(status: ApprovalStatus | undefined, enabled = true) {
  return useInfiniteQuery({
    queryKey: queryKeys.approvals(status ?? 'all'),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => listQuery(status, pageParam),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled,
    // Agents ask while the person is away: never show a remembered inbox on opening.
    staleTime: 0,
  });
}

/** The status filter, kept in the address; '' is the default view. */
function useStatusFilter() {
  const [params, setParams] = useSearchParams();
  const filter = (params.get('status') ?? '') as '' | ApprovalStatus;
  const setFilter = (v: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (v) next.set('status', v);
        else next.delete('status');
        return next;
      },
      { replace: true },
    );
  return [filter, setFilter] as const;
}

/** The default view: every pending one first, then the rest, newest first; else the filter's status. */
function useInboxLists(filter: '' | ApprovalStatus) {
  const pending = useApprovalList('pending', filter === '');
  const others = useApprovalList(filter || undefined);
  const pendingItems = filter === '' ? (pending.data?.pages.flatMap((p) => p.items) ?? []) : [];
  const otherItems = (others.data?.pages.flatMap((p) => p.items) ?? []).filter(
    (a) => filter !== '' || a.status !== 'pending',
  );
  const loading = others.isPending || (filter === '' && pending.isPending);
  const error = others.error ?? (filter === '' ? pending.error : null);
  return { pending, others, pendingItems, otherItems, loading, error };
}

function Inbox() {
  const [filter, setFilter] = useStatusFilter();
  const zone = personZone();
  const nameOf = useAgentNames();
  const [outcome, setOutcome] = useState<{ approval: Approval; decision: Decision } | null>(null);
  const decide = useDecide((approval, decision) => setOutcome({ approval, decision }));
  const { pending, others, pendingItems, otherItems, loading, error } = useInboxLists(filter);
  const row = (a: Approval) => (
    <ApprovalRow
      key={a.id}
      approval={a}
      agentName={nameOf(a.agentId, a.agentName)}
      zone={zone}
      busy={decide.isPending && decide.variables?.id === a.id}
      onDecide={(decision) => {
        setOutcome(null);
        decide.mutate({ id: a.id, decision });
      }}
    />
  );
  return (
    <main className="page">
      <h1>Approvals</h1>
      <p className="hint">
        Calls your agents asked you to approve. An approved call runs once, as the agent is at that moment.
        Times in {zone.replaceAll('_', ' ')}.
      </p>
      <StatusFilter value={filter} onChange={setFilter} />
      <div role="status" className="decision-outcome">
        {outcome ? <OutcomeNotice {...outcome} /> : null}
      </div>
      {decide.isError ? (
        <p role="alert" className="error">
          {errorText(decide.error)}
        </p>
      ) : null}
      {loading ? <Loading /> : null}
      {error ? <LoadError error={error} /> : null}
      {filter === '' && !loading && !error ? (
        <Waiting
          items={pendingItems}
          row={row}
          more={pending.hasNextPage}
          onMore={() => pending.fetchNextPage()}
        />
      ) : null}
      {!loading && !error && otherItems.length === 0 ? (
        <p className="empty">{filter ? 'No approvals with this status.' : 'None yet.'}</p>
      ) : null}
      {otherItems.length ? <ul className="record-list approvals">{otherItems.map(row)}</ul> : null}
      {others.hasNextPage ? (
        <OlderApprovals fetching={others.isFetchingNextPage} onMore={() => others.fetchNextPage()} />
      ) : null}
    </main>
  );
}

function OlderApprovals(props: { fetching: boolean; onMore: () => void }) {
  return (
    <div className="actions">
      <button type="button" className="secondary" disabled={props.fetching} onClick={props.onMore}>
        Older approvals
      </button>
    </div>
  );
}

function StatusFilter(props: { value: '' | ApprovalStatus; onChange: (status: string) => void }) {
  return (
    <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <Select name="status" label="Status" value={props.value} onChange={props.onChange}>
        <option value="">Waiting for you first, then all</option>
        {APPROVAL_STATUSES.map((s) => (
          <option key={s} value={s}>
            {approvalStatusWords[s]}
          </option>
        ))}
      </Select>
    </form>
  );
}

/** The default view's first part: what waits for the person, then the heading of the rest. */
function Waiting(props: {
  items: Approval[];
  row: (approval: Approval) => ReactNode;
  more: boolean;
  onMore: () => void;
}) {
  return (
    <>
      <h2>Waiting for you</h2>
      {props.items.length === 0 ? (
        <p className="empty">Nothing waits for your approval.</p>
      ) : (
        <ul className="record-list approvals pending">{props.items.map(props.row)}</ul>
      )}
      {props.more ? (
        <button type="button" className="secondary" onClick={props.onMore}>
          More waiting
        </button>
      ) : null}
      <h2>Decided or expired</h2>
    </>
  );
}

function OutcomeNotice(props: { approval: Approval; decision: Decision }) {
  const { approval, decision } = props;
  return (
    <div className={approval.status === 'failed' ? 'error' : 'notice'}>
      <p>
        {decision === 'approve' ? 'Approved' : 'Denied'}: “{approval.summary}”.
      </p>
      <Outcome approval={approval} />
    </div>
  );
}

function ApprovalRow(props: {
  approval: Approval;
  agentName: string;
  zone: string;
  busy: boolean;
  onDecide: (decision: Decision) => void;
}) {
  const { approval: a, agentName, zone, busy, onDecide } = props;
  return (
    <li data-approval={a.id}>
      <div>
        <strong>{a.summary}</strong> <StatusBadge status={a.status} />
        <span className="hint approval-line">
          {agentName} · <code>{toolNameOf(a.actionKey)}</code>
          {a.customer?.name ? ` · for ${a.customer.name}` : ''} · asked {formatDateTime(a.createdAt, zone)}
          {a.status === 'pending' ? ` · expires ${formatDateTime(a.expiresAt, zone)}` : ''}
          {a.decidedAt ? ` · decided ${formatDateTime(a.decidedAt, zone)}` : ''}
        </span>
        {a.status !== 'pending' ? <Outcome approval={a} /> : null}
      </div>
      <span className="member-actions">
        {a.status === 'pending' ? (
          <>
            <button
              type="button"
              className="primary"
              disabled={busy}
              aria-label={`Approve: ${a.summary}`}
              onClick={() => onDecide('approve')}
            >
              Approve
            </button>
            <button
              type="button"
              className="secondary danger"
              disabled={busy}
              aria-label={`Deny: ${a.summary}`}
              onClick={() => onDecide('deny')}
            >
              Deny
            </button>
          </>
        ) : null}
        <Link to={`/app/approvals/${a.id}`} aria-label={`Details of approval ${a.id}`}>
          Details
        </Link>
      </span>
    </li>
  );
}
