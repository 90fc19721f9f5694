// The signed-in person's own AI agents (not the organisation's): the list with each agent's status,
// permissions and last use, and the routes of a new agent, an agent's settings (AgentDetail.tsx:
// pause, resume or disable, permissions, keys, the policy) and its activity timeline.
import { Link, Route, Routes } from 'react-router';
import { useAgents, usePermissionGroups } from '../../api/hooks.js';
import { formatDateTime } from '../../lib/time.js';
import { LoadError, Loading } from '../ui.js';
import AgentActivity from './AgentActivity.js';
import { AgentDetail, AgentStatusBadge } from './AgentDetail.js';
import { personZone } from './agent-values.js';
import { NewAgent } from './NewAgent.js';
import { permissionsSummary } from './permissions.js';

export default function Agents() {
  return (
    <Routes>
      <Route index element={<AgentList />} />
      <Route path="new" element={<NewAgent />} />
      <Route path=":id" element={<AgentDetail />} />
      <Route path=":id/activity" element={<AgentActivity />} />
    </Routes>
  );
}

function AgentList() {
  const agents = useAgents();
  const groups = usePermissionGroups();
  const zone = personZone();
  return (
    <main className="page">
      <h1>Agents</h1>
      <p className="hint">
        Your own AI agents: each acts as you through MCP with its own key, only with the permissions you give
        it. Times in {zone.replaceAll('_', ' ')}.
      </p>
      {agents.isPending ? <Loading /> : null}
      {agents.isError ? <LoadError error={agents.error} /> : null}
      {agents.data?.length === 0 ? (
        <p className="empty">No agents yet. Create one to let an assistant book or plan for you.</p>
      ) : null}
      {agents.data?.length ? (
        <ul className="record-list">
          {agents.data.map((a) => (
            <li key={a.id}>
              <div>
                <strong>{a.name}</strong> <AgentStatusBadge status={a.status} />{' '}
                <span className="hint agent-line">
                  {permissionsSummary(a, groups.data)} ·{' '}
                  {a.lastUsedAt ? `last used ${formatDateTime(a.lastUsedAt, zone)}` : 'never used'}
                </span>
              </div>
              <span className="member-actions">
                <Link to={`/app/agents/${a.id}`} aria-label={`Settings of ${a.name}`}>
                  Settings
                </Link>
                <Link to={`/app/agents/${a.id}/activity`} aria-label={`Activity of ${a.name}`}>
                  Activity
                </Link>
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      <p>
        <Link className="button primary" to="/app/agents/new">
          New agent
        </Link>
      </p>
    </main>
  );
}
