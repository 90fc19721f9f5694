import { Link, useParams } from 'react-router';
import { errorText } from '../../api/errors.js';
import { useApproval } from '../../api/hooks.js';
import type { Approval } from '../../api/types.js';
import { formatDateTime } from '../../lib/time.js';
import { personZone, toolNameOf } from '../agents/agent-values.js';
import { LoadError, Loading } from '../ui.js';
import { Outcome, StatusBadge, useAgentNames, useDecide } from './approval-parts.js';

export function ApprovalPage() {
  const id = Number(useParams().id);
  const zone = personZone();
  const nameOf = useAgentNames();
  // Approved and running: its outcome comes soon (useApproval looks again until it does).
  const approval = useApproval(id);
  const decide = useDecide();
  if (approval.isPending) return <Loading />;
  if (approval.isError)
    return (
      <main className="page">
        <LoadError error={approval.error} />
        <Link to="/app/approvals">All approvals</Link>
      </main>
    );
  const a = approval.data;
  return (
    <main className="page">
      <p>
        <Link to="/app/approvals">All approvals</Link>
      </p>
      <h1>Approval {a.id}</h1>
      <p className="approval-summary">
        <strong>{a.summary}</strong>
      </p>
      <ApprovalFacts approval={a} agentName={nameOf(a.agentId, a.agentName)} zone={zone} />
      <p className="hint">Times in {zone.replaceAll('_', ' ')}.</p>
      <div role="status">
        <Outcome approval={a} />
      </div>
      {a.status === 'pending' ? <DecideButtons id={a.id} decide={decide} /> : null}
      {decide.isError ? (
        <p role="alert" className="error">
          {errorText(decide.error)}
        </p>
      ) : null}
      <h2>The call, exactly as it runs</h2>
      <pre className="call">{JSON.stringify(a.arguments, null, 2)}</pre>
    </main>
  );
}

/** Its status, agent, customer, action and times. */
function ApprovalFacts(props: { approval: Approval; agentName: string; zone: string }) {
  const { approval: a, zone } = props;
  return (
    <dl className="summary">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={a.status} />
      </dd>
      <dt>Agent</dt>
      <dd>
        <Link to={`/app/agents/${a.agentId}/activity`}>{props.agentName}</Link>
      </dd>
      {a.customer ? (
        <>
          <dt>Customer</dt>
          <dd>{[a.customer.name, a.customer.email].filter(Boolean).join(' · ')}</dd>
        </>
      ) : null}
      <dt>Action</dt>
      <dd>
        <code>{toolNameOf(a.actionKey)}</code>
      </dd>
      <dt>Asked</dt>
      <dd>{formatDateTime(a.createdAt, zone)}</dd>
      <dt>{a.status === 'pending' ? 'Expires' : 'Expiry'}</dt>
      <dd>{formatDateTime(a.expiresAt, zone)}</dd>
      {a.decidedAt ? (
        <>
          <dt>Decided</dt>
          <dd>{formatDateTime(a.decidedAt, zone)}</dd>
        </>
      ) : null}
    </dl>
  );
}

function DecideButtons(props: { id: number; decide: ReturnType<typeof useDecide> }) {
  const { id, decide } = props;
  return (
    <div className="actions">
      <button
        type="button"
        className="primary"
        disabled={decide.isPending}
        onClick={() => decide.mutate({ id, decision: 'approve' })}
      >
        Approve
      </button>
      <button
        type="button"
        className="secondary danger"
        disabled={decide.isPending}
        onClick={() => decide.mutate({ id, decision: 'deny' })}
      >
        Deny
      </button>
    </div>
  );
}
