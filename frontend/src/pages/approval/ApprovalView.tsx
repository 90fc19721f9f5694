// The approval as the owner reads it: who asks what, the exact call, and the decision.
import { Fragment } from 'react';
import type { Approval } from '../../api/types.js';
import { argumentRows, customerText, outcomeOf, when } from './approval-text.js';

export function ApprovalView(props: {
  approval: Approval;
  busy: boolean;
  onDecide: (action: 'approve' | 'deny') => void;
}) {
  const { approval, busy, onDecide } = props;
  return (
    <section id="view-approval" aria-labelledby="approval-title">
      <h1 id="approval-title" tabIndex={-1}>
        {approval.agentName} asks to: <span id="summary">{approval.summary}</span>
      </h1>
      <ApprovalFacts approval={approval} />
      <h2>The exact call</h2>
      <TheCall approval={approval} />
      {approval.status === 'pending' ? (
        <div id="decision" className="actions decision">
          <button
            id="deny"
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => onDecide('deny')}
          >
            Deny
          </button>
          <button
            id="approve"
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => onDecide('approve')}
          >
            Approve
          </button>
        </div>
      ) : (
        <p id="approval-outcome" className="notice">
          {outcomeOf(approval)}
        </p>
      )}
    </section>
  );
}

function ApprovalFacts({ approval }: { approval: Approval }) {
  return (
    <dl className="summary">
      <dt>Status</dt>
      <dd id="approval-status">{approval.status}</dd>
      <dt>Agent</dt>
      <dd id="approval-agent">{approval.agentName}</dd>
      {approval.customer ? (
        <>
          <dt>Customer</dt>
          <dd id="approval-customer">{customerText(approval.customer)}</dd>
        </>
      ) : null}
      <dt>Tool</dt>
      <dd id="approval-action">
        <code>{approval.actionKey.replaceAll('.', '_')}</code>
      </dd>
      <dt>Asked</dt>
      <dd id="approval-created">{when(approval.createdAt)}</dd>
      <dt>Decide by</dt>
      <dd id="approval-expires">{when(approval.expiresAt)}</dd>
    </dl>
  );
}

/** The stored call's arguments, in words and as the agent sent them. */
function TheCall({ approval }: { approval: Approval }) {
  return (
    <>
      {Object.keys(approval.arguments).length ? (
        <dl id="approval-call" className="summary">
          {argumentRows(approval.arguments).map(([label, text]) => (
            <Fragment key={label}>
              <dt>{label}</dt>
              <dd>{text}</dd>
            </Fragment>
          ))}
        </dl>
      ) : (
        <p id="approval-call">The tool is called without arguments.</p>
      )}
      <details className="call-details">
        <summary>As the agent sent it (JSON)</summary>
        <pre id="approval-arguments" className="arguments">
          {JSON.stringify(approval.arguments, null, 2)}
        </pre>
      </details>
    </>
  );
}
