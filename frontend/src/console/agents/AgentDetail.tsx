// One agent's settings: what it is, pause, resume or disable it, its name, keys, policy and
// permissions (each section saves on its own).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'react-router';
import { unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { useAgent, usePermissionData } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Agent, Catalog, PermissionGroup } from '../../api/types.js';
import { ConfirmBox } from '../../components/ConfirmBox.js';
import { formatDateTime } from '../../lib/time.js';
import { Field, FormError, LoadError, Loading, SubmitActions } from '../ui.js';
import { KeysSection } from './AgentKeys.js';
import { PolicySection } from './AgentPolicy.js';
import { agentStatusWords, personZone } from './agent-values.js';
import { choiceOf, permissionsBody, permissionsSummary, scopesDiffer } from './permissions.js';
import { PermissionsEditor } from './permissions-editor.js';

export function AgentStatusBadge(props: { status: Agent['status'] }) {
  return <span className={`badge agent-${props.status}`}>{agentStatusWords[props.status]}</span>;
}

export function AgentDetail() {
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

/** Pausing or resuming the agent, and disabling it for good once confirmed. */
function useStatusActions(agent: Agent) {
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
  return { confirming, setConfirming, setStatus, disable };
}

function StatusActions(props: { agent: Agent }) {
  const { agent } = props;
  const { confirming, setConfirming, setStatus, disable } = useStatusActions(agent);
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
        <DisableConfirm agent={agent} disable={disable} onKeep={() => setConfirming(false)} />
      ) : null}
    </section>
  );
}

function DisableConfirm(props: {
  agent: Agent;
  disable: ReturnType<typeof useStatusActions>['disable'];
  onKeep: () => void;
}) {
  const { disable } = props;
  return (
    <ConfirmBox
      title={`Disable ${props.agent.name}?`}
      level={3}
      confirm="Yes, disable it"
      keep="Keep it"
      pending={disable.isPending}
      onConfirm={() => disable.mutate()}
      onKeep={props.onKeep}
    >
      <p>Its keys and sign-ins are revoked at once, and it cannot be turned on again.</p>
      {disable.isError ? (
        <p role="alert" className="error">
          {errorText(disable.error)}
        </p>
      ) : null}
    </ConfirmBox>
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
        <SubmitActions pending={save.isPending} label="Save permissions" />
      </form>
    </section>
  );
}
