// What the service holds about the signed-in person (the access report): each kind of record
// with its count, purpose and retention, the agents and apps acting for them, the policy accepted.

import { usePrivacyAccess } from '../../api/account-hooks.js';
import type { AccessReport } from '../../api/types.js';
import { LoadError, Loading } from '../ui.js';
import { when } from './privacy-words.js';

export function AccessSection() {
  const report = usePrivacyAccess();
  return (
    <section aria-labelledby="access-heading">
      <h2 id="access-heading">What the service holds about you</h2>
      {report.isPending ? <Loading /> : null}
      {report.isError ? <LoadError error={report.error} /> : null}
      {report.data ? <AccessReportView report={report.data} /> : null}
    </section>
  );
}

function AccessReportView(props: { report: AccessReport }) {
  const { report } = props;
  const held = report.categories.filter((c) => c.count > 0);
  const { agents, oauthClients } = report.actingForYou;
  return (
    <>
      <p className="hint">As of {when(report.generatedAt)}.</p>
      {held.length === 0 ? <p className="empty">Nothing is held about you.</p> : null}
      {held.length > 0 ? (
        <ul className="record-list access-categories">
          {held.map((c) => (
            <li key={c.id}>
              <div>
                <strong>{c.label}</strong>{' '}
                <span className="hint">
                  {c.count} {c.count === 1 ? 'record' : 'records'}
                </span>
                <p className="category-detail">{c.purpose}</p>
                <p className="hint category-detail">Kept: {c.retention}</p>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      <h3>Acting for you</h3>
      {agents.length === 0 && oauthClients.length === 0 ? (
        <p className="empty">No agents or connected apps can act for you.</p>
      ) : (
        <ul className="record-list">
          {agents.map((a) => (
            <li key={`agent-${a.id}`}>
              <span>
                <strong>{a.name}</strong> <span className="hint">agent, {a.status}</span>
              </span>
              <span className="hint">
                {a.liveKeys} live {a.liveKeys === 1 ? 'key' : 'keys'}, last used{' '}
                {a.lastUsedAt ? when(a.lastUsedAt) : 'never'}
              </span>
            </li>
          ))}
          {oauthClients.map((c) => (
            <li key={`client-${c.clientId}-${c.agentId}`}>
              <span>
                <strong>{c.clientName ?? c.clientId}</strong> <span className="hint">connected app</span>
              </span>
              <span className="hint">until {when(c.expiresAt)}</span>
            </li>
          ))}
        </ul>
      )}
      <p className="hint">
        Privacy policy:{' '}
        {report.policyAcceptance
          ? `version ${report.policyAcceptance.version} accepted ${when(report.policyAcceptance.acceptedAt)}`
          : 'not accepted through this service'}
        .
      </p>
    </>
  );
}
