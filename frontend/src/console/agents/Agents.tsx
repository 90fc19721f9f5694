// The signed-in person's own AI agents (not the organisation's): list, create from a preset or
// chosen actions with calendar and group scopes, and each agent's detail: pause, resume or
// disable, permissions, keys (a new key is shown once with a copy button, never again), the
// policy (when calls wait for approval, daily limits) and the activity timeline.

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import { unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import {
  useActiveOrganisation,
  useAgent,
  useAgentCatalog,
  useAgents,
  usePermissionGroups,
} from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Agent, Catalog, PermissionGroup, Policy, PolicyBody } from '../../api/types.js';
import { ConfirmBox } from '../../components/ConfirmBox.js';
import { formatDateTime } from '../../lib/time.js';
import { organisationCurrency } from '../organisations/currency.js';
import { CopyText, Field, FormError, LoadError, Loading, Select, ShownOnce } from '../ui.js';
import AgentActivity from './AgentActivity.js';
import { agentStatusWords, countOf, majorOf, minorOf, personZone } from './agent-values.js';
import {
  choiceOf,
  type PermissionChoice,
  PermissionsEditor,
  permissionsBody,
  permissionsSummary,
  scopesDiffer,
} from './permissions-editor.js';

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

export function AgentStatusBadge(props: { status: Agent['status'] }) {
  return <span className={`badge agent-${props.status}`}>{agentStatusWords[props.status]}</span>;
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

/** The catalogue and the presets, both needed to show or edit permissions. */
function usePermissionData() {
  const catalog = useAgentCatalog();
  const groups = usePermissionGroups();
  return {
    catalog: catalog.data,
    groups: groups.data,
    isPending: catalog.isPending || groups.isPending,
    error: catalog.error ?? groups.error,
  };
}

function NewAgent() {
  const data = usePermissionData();
  if (data.isPending) return <Loading />;
  if (data.error || !data.catalog || !data.groups)
    return (
      <main className="page">
        <LoadError error={data.error} />
      </main>
    );
  return <NewAgentForm catalog={data.catalog} groups={data.groups} />;
}

function NewAgentForm(props: { catalog: Catalog; groups: PermissionGroup[] }) {
  const { catalog, groups } = props;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [choice, setChoice] = useState<PermissionChoice>(() => choiceOf(undefined, groups));
  // Made already, its chosen actions refused: a new attempt only sets the actions again.
  const [created, setCreated] = useState<Agent | null>(null);
  const create = useMutation({
    mutationFn: async () => {
      let agent = created;
      if (!agent) {
        agent = await unwrap(
          authed.POST('/api/agents', {
            body: {
              name,
              description: description.trim() || null,
              ...(choice.mode === 'preset'
                ? { permissionGroupId: permissionsBody(choice, catalog).permissionGroupId }
                : {}),
            },
          }),
        );
        setCreated(agent);
      }
      if (choice.mode === 'actions' || created) {
        agent = await unwrap(
          authed.PUT('/api/agents/{id}/permissions', {
            params: { path: { id: agent.id } },
            body: permissionsBody(choice, catalog),
          }),
        );
      }
      return agent;
    },
    onSuccess: async (agent) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.agents() });
      navigate(`/app/agents/${agent.id}`);
    },
    onError: () => queryClient.invalidateQueries({ queryKey: queryKeys.agents() }),
  });
  const errors = fieldErrors(create.error);
  return (
    <main className="page">
      <p>
        <Link to="/app/agents">All agents</Link>
      </p>
      <h1>New agent</h1>
      <form
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        {created ? (
          <p className="notice">
            {created.name} was created without these permissions: it can do nothing yet. Change the choice
            below and try again, or <Link to={`/app/agents/${created.id}`}>open it</Link>.
          </p>
        ) : (
          <>
            <Field name="name" label="Name" value={name} error={errors.name} onChange={setName} />
            <Field
              name="description"
              label="Description"
              required={false}
              value={description}
              error={errors.description}
              hint="What it is for, so you recognise it later."
              onChange={setDescription}
            />
          </>
        )}
        <PermissionsEditor value={choice} onChange={setChoice} catalog={catalog} groups={groups} />
        {create.isError ? <FormError error={create.error} shown={['name', 'description']} /> : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={create.isPending}>
            {created ? 'Set its permissions' : 'Create agent'}
          </button>
        </div>
      </form>
    </main>
  );
}

function AgentDetail() {
  const id = Number(useParams().id);
  const agent = useAgent(id, { staleTime: 0 });
  const data = usePermissionData();
  if (agent.isPending || data.isPending) return <Loading />;
  if (agent.isError || data.error || !data.catalog || !data.groups)
    return (
      <main className="page">
        <LoadError error={agent.error ?? data.error} />
        <Link to="/app/agents">All agents</Link>
      </main>
    );
  const a = agent.data;
  const zone = personZone();
  return (
    <main className="page">
      <p>
        <Link to="/app/agents">All agents</Link>
      </p>
      <h1>{a.name}</h1>
      <dl className="summary">
        <dt>Status</dt>
        <dd>
          <AgentStatusBadge status={a.status} />
        </dd>
        {a.description ? (
          <>
            <dt>Description</dt>
            <dd>{a.description}</dd>
          </>
        ) : null}
        <dt>Permissions</dt>
        <dd>{permissionsSummary(a, data.groups)}</dd>
        <dt>Created</dt>
        <dd>{formatDateTime(a.createdAt, zone)}</dd>
        <dt>Last used</dt>
        <dd>{a.lastUsedAt ? formatDateTime(a.lastUsedAt, zone) : 'never'}</dd>
      </dl>
      <p className="hint">Times in {zone.replaceAll('_', ' ')}.</p>
      <p>
        <Link to={`/app/agents/${a.id}/activity`}>Activity of {a.name}</Link>
      </p>
      <StatusActions agent={a} />
      <NameSection key={a.id} agent={a} />
      <KeysSection agent={a} />
      <PolicySection agent={a} />
      <PermissionsSection
        key={`${a.id}-${a.permissionGroupId}`}
        agent={a}
        catalog={data.catalog}
        groups={data.groups}
      />
    </main>
  );
}

function useAgentSaved() {
  const queryClient = useQueryClient();
  return (agent: Agent) => {
    queryClient.setQueryData(queryKeys.agent(agent.id), agent);
    return queryClient.invalidateQueries({ queryKey: queryKeys.agents(), exact: true });
  };
}

function StatusActions(props: { agent: Agent }) {
  const { agent } = props;
  const saved = useAgentSaved();
  const [confirming, setConfirming] = useState(false);
  const setStatus = useMutation({
    mutationFn: (status: 'active' | 'paused') =>
      unwrap(authed.PUT('/api/agents/{id}', { params: { path: { id: agent.id } }, body: { status } })),
    onSuccess: saved,
  });
  const disable = useMutation({
    mutationFn: () => unwrap(authed.DELETE('/api/agents/{id}', { params: { path: { id: agent.id } } })),
    onSuccess: (a) => {
      setConfirming(false);
      return saved(a);
    },
  });
  if (agent.status === 'disabled')
    return (
      <p className="notice">
        This agent is disabled: its keys are revoked and it cannot act again. Its activity stays readable.
      </p>
    );
  return (
    <section aria-labelledby="status-heading">
      <h2 id="status-heading">Status</h2>
      <p className="hint">
        {agent.status === 'active'
          ? 'Active: it can call the actions it is allowed.'
          : 'Paused: every call is refused until you resume it.'}
      </p>
      <div className="actions">
        {agent.status === 'active' ? (
          <button
            type="button"
            className="secondary"
            disabled={setStatus.isPending}
            onClick={() => setStatus.mutate('paused')}
          >
            Pause
          </button>
        ) : (
          <button
            type="button"
            className="secondary"
            disabled={setStatus.isPending}
            onClick={() => setStatus.mutate('active')}
          >
            Resume
          </button>
        )}
        <button type="button" className="secondary danger" onClick={() => setConfirming(true)}>
          Disable…
        </button>
      </div>
      {setStatus.isError ? (
        <p role="alert" className="error">
          {errorText(setStatus.error)}
        </p>
      ) : null}
      {confirming ? (
        <ConfirmBox
          title={`Disable ${agent.name}?`}
          level={3}
          confirm="Yes, disable it"
          keep="Keep it"
          pending={disable.isPending}
          onConfirm={() => disable.mutate()}
          onKeep={() => setConfirming(false)}
        >
          <p>Its keys and sign-ins are revoked at once, and it cannot be turned on again.</p>
          {disable.isError ? (
            <p role="alert" className="error">
              {errorText(disable.error)}
            </p>
          ) : null}
        </ConfirmBox>
      ) : null}
    </section>
  );
}

function NameSection(props: { agent: Agent }) {
  const { agent } = props;
  const saved = useAgentSaved();
  const [name, setName] = useState(agent.name);
  const [description, setDescription] = useState(agent.description ?? '');
  const [done, setDone] = useState(false);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        authed.PUT('/api/agents/{id}', {
          params: { path: { id: agent.id } },
          body: { name, description: description.trim() || null },
        }),
      ),
    onSuccess: (a) => {
      setDone(true);
      return saved(a);
    },
  });
  if (agent.status === 'disabled') return null;
  const errors = fieldErrors(save.error);
  return (
    <section aria-labelledby="name-heading">
      <h2 id="name-heading">Name and description</h2>
      <form
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setDone(false);
          save.mutate();
        }}
      >
        <Field name="name" label="Name" value={name} error={errors.name} onChange={setName} />
        <Field
          name="description"
          label="Description"
          required={false}
          value={description}
          error={errors.description}
          onChange={setDescription}
        />
        {save.isError ? <FormError error={save.error} shown={['name', 'description']} /> : null}
        <p role="status">{done ? 'Saved.' : ''}</p>
        <div className="actions">
          <button type="submit" className="secondary" disabled={save.isPending}>
            Save name and description
          </button>
        </div>
      </form>
    </section>
  );
}

function PermissionsSection(props: { agent: Agent; catalog: Catalog; groups: PermissionGroup[] }) {
  const { agent, catalog, groups } = props;
  const saved = useAgentSaved();
  const [choice, setChoice] = useState(() => choiceOf(agent, groups));
  const [done, setDone] = useState(false);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        authed.PUT('/api/agents/{id}/permissions', {
          params: { path: { id: agent.id } },
          body: permissionsBody(choice, catalog),
        }),
      ),
    onSuccess: (a) => {
      setDone(true);
      return saved(a);
    },
  });
  if (agent.status === 'disabled') return null;
  return (
    <section aria-labelledby="permissions-heading">
      <h2 id="permissions-heading">Permissions</h2>
      {scopesDiffer(agent) ? (
        <p className="hint">
          Its actions have different scopes (set through the API): saving here gives every action the one
          scope chosen below.
        </p>
      ) : null}
      <form
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setDone(false);
          save.mutate();
        }}
      >
        <PermissionsEditor
          value={choice}
          onChange={(c) => {
            setDone(false);
            setChoice(c);
          }}
          catalog={catalog}
          groups={groups}
        />
        {save.isError ? <FormError error={save.error} shown={[]} /> : null}
        <p role="status">{done ? 'Permissions saved.' : ''}</p>
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            Save permissions
          </button>
        </div>
      </form>
    </section>
  );
}

function KeysSection(props: { agent: Agent }) {
  const { agent } = props;
  const queryClient = useQueryClient();
  const path = { id: agent.id };
  const queryKey = queryKeys.agentKeys(agent.id);
  const keys = useQuery({
    queryKey,
    queryFn: () => unwrap(authed.GET('/api/agents/{id}/keys', { params: { path } })),
    staleTime: 0,
  });
  const [label, setLabel] = useState('');
  const [shown, setShown] = useState<{ label: string; value: string; mcpUrl: string } | null>(null);
  const create = useMutation({
    // Kept nowhere once this screen is left: the key is in `shown` only.
    gcTime: 0,
    mutationFn: () => unwrap(authed.POST('/api/agents/{id}/keys', { params: { path }, body: { label } })),
    onSuccess: (created, _vars) => {
      setShown({ label: created.label, value: created.key, mcpUrl: created.mcpUrl });
      setLabel('');
      create.reset();
      return queryClient.invalidateQueries({ queryKey });
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: number) =>
      unwrap(authed.DELETE('/api/agents/{id}/keys/{keyId}', { params: { path: { ...path, keyId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey }),
  });
  const zone = personZone();
  const errors = fieldErrors(create.error);
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">Keys</h2>
      {shown ? (
        <ShownOnce
          title={`Key “${shown.label}”`}
          level={3}
          hint="Copy it now: it is shown this once. Give it to your assistant as its MCP key (header x-agent-key), with the MCP address below."
          value={shown.value}
          valueId="agent-key"
          copyLabel="Copy key"
          beside={
            <CopyText
              label="MCP address:"
              value={shown.mcpUrl}
              valueId="mcp-url"
              copyLabel="Copy MCP address"
            />
          }
          onDone={() => setShown(null)}
        />
      ) : null}
      {keys.isPending ? <Loading /> : null}
      {keys.isError ? <LoadError error={keys.error} /> : null}
      {keys.data?.length === 0 ? <p className="empty">No keys yet.</p> : null}
      {keys.data?.length ? (
        <ul className="record-list keys">
          {keys.data.map((k) => (
            <li key={k.id}>
              <div>
                <strong>{k.label}</strong> <code>{k.prefix}…</code>{' '}
                {k.revokedAt ? <span className="badge agent-disabled">revoked</span> : null}
                <span className="hint agent-line">
                  made {formatDateTime(k.createdAt, zone)} ·{' '}
                  {k.lastUsedAt ? `last used ${formatDateTime(k.lastUsedAt, zone)}` : 'never used'}
                  {k.revokedAt ? ` · revoked ${formatDateTime(k.revokedAt, zone)}` : ''}
                </span>
              </div>
              {k.revokedAt ? null : (
                <button
                  type="button"
                  className="secondary danger"
                  disabled={revoke.isPending}
                  aria-label={`Revoke key ${k.label}`}
                  onClick={() => revoke.mutate(k.id)}
                >
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {revoke.isError ? (
        <p role="alert" className="error">
          {errorText(revoke.error)}
        </p>
      ) : null}
      {agent.status === 'disabled' ? null : (
        <form
          noValidate
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <Field
            name="label"
            label="New key's label"
            value={label}
            error={errors.label}
            hint="Where it will be used, e.g. “laptop assistant”."
            onChange={setLabel}
          />
          {create.isError ? <FormError error={create.error} shown={['label']} /> : null}
          <div className="actions">
            <button type="submit" className="primary" disabled={create.isPending}>
              Create key
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

const approvalModeWords: Record<Policy['requireApproval'], string> = {
  never: 'Never: it acts within its permissions',
  writes: 'For every change (writes need approval)',
  destructive: 'Only to delete or cancel',
};

interface PolicyForm {
  requireApproval: Policy['requireApproval'];
  approvalOverAmount: string;
  bookingsPerDay: string;
  cancellationsPerDay: string;
  spendPerDay: string;
}

function PolicySection(props: { agent: Agent }) {
  const { agent } = props;
  const policy = useQuery({
    queryKey: queryKeys.agentPolicy(agent.id),
    queryFn: () => unwrap(authed.GET('/api/agents/{id}/policy', { params: { path: { id: agent.id } } })),
  });
  const org = useActiveOrganisation();
  if (agent.status === 'disabled') return null;
  if (policy.isPending || org.isPending) return <Loading />;
  if (policy.isError) return <LoadError error={policy.error} />;
  // The organisation's currency, as its types' prices default to (organisations/currency.ts).
  const currency = org.active ? organisationCurrency(org.active) : 'USD';
  return <PolicyEditor agent={agent} policy={policy.data} currency={currency} />;
}

function PolicyEditor(props: { agent: Agent; policy: Policy; currency: string }) {
  const { agent, policy, currency } = props;
  const queryClient = useQueryClient();
  const [form, setForm] = useState<PolicyForm>(() => ({
    requireApproval: policy.requireApproval,
    approvalOverAmount: majorOf(policy.approvalOverAmount, currency),
    bookingsPerDay: policy.limits.bookingsPerDay == null ? '' : String(policy.limits.bookingsPerDay),
    cancellationsPerDay:
      policy.limits.cancellationsPerDay == null ? '' : String(policy.limits.cancellationsPerDay),
    spendPerDay: majorOf(policy.limits.spendPerDay, currency),
  }));
  const [done, setDone] = useState(false);
  const set =
    <K extends keyof PolicyForm>(key: K) =>
    (value: PolicyForm[K]) => {
      setDone(false);
      setForm((f) => ({ ...f, [key]: value }));
    };
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        authed.PUT('/api/agents/{id}/policy', {
          params: { path: { id: agent.id } },
          // Text that is no number goes as it is: the API refuses it on its field.
          body: {
            requireApproval: form.requireApproval,
            approvalOverAmount: minorOf(form.approvalOverAmount, currency),
            limits: {
              bookingsPerDay: countOf(form.bookingsPerDay),
              cancellationsPerDay: countOf(form.cancellationsPerDay),
              spendPerDay: minorOf(form.spendPerDay, currency),
            },
          } as PolicyBody,
        }),
      ),
    onSuccess: (saved) => {
      setDone(true);
      queryClient.setQueryData(queryKeys.agentPolicy(agent.id), saved);
    },
  });
  const errors = fieldErrors(save.error);
  const shown = [
    'requireApproval',
    'approvalOverAmount',
    'limits.bookingsPerDay',
    'limits.cancellationsPerDay',
    'limits.spendPerDay',
  ];
  return (
    <section aria-labelledby="policy-heading">
      <h2 id="policy-heading">Policy</h2>
      <p className="hint">
        Calls that wait for approval appear in <Link to="/app/approvals">Approvals</Link> for 24 hours. Empty
        limits mean no limit; limits count the last 24 hours.
      </p>
      <form
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setDone(false);
          save.mutate();
        }}
      >
        <Select
          name="requireApproval"
          label="Ask me before it acts"
          value={form.requireApproval}
          error={errors.requireApproval}
          onChange={(v) => set('requireApproval')(v as Policy['requireApproval'])}
        >
          {(Object.keys(approvalModeWords) as Policy['requireApproval'][]).map((m) => (
            <option key={m} value={m}>
              {approvalModeWords[m]}
            </option>
          ))}
        </Select>
        <Field
          name="approvalOverAmount"
          label={`Also ask when a call costs more than (${currency})`}
          type="text"
          required={false}
          value={form.approvalOverAmount}
          error={errors.approvalOverAmount}
          hint="Whatever the choice above; empty: no amount threshold."
          onChange={set('approvalOverAmount')}
        />
        <fieldset>
          <legend>Daily limits</legend>
          <div className="grid-2">
            <Field
              name="limits.bookingsPerDay"
              label="Bookings and holds per day"
              type="text"
              required={false}
              value={form.bookingsPerDay}
              error={errors['limits.bookingsPerDay']}
              onChange={set('bookingsPerDay')}
            />
            <Field
              name="limits.cancellationsPerDay"
              label="Cancellations and releases per day"
              type="text"
              required={false}
              value={form.cancellationsPerDay}
              error={errors['limits.cancellationsPerDay']}
              onChange={set('cancellationsPerDay')}
            />
            <Field
              name="limits.spendPerDay"
              label={`Spending per day (${currency})`}
              type="text"
              required={false}
              value={form.spendPerDay}
              error={errors['limits.spendPerDay']}
              onChange={set('spendPerDay')}
            />
          </div>
        </fieldset>
        {save.isError ? <FormError error={save.error} shown={shown} /> : null}
        <p role="status">{done ? 'Policy saved.' : ''}</p>
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            Save policy
          </button>
        </div>
      </form>
    </section>
  );
}
