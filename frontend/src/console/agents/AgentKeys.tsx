// An agent's keys: each with its prefix, when it was made and last used; a new key is shown once
// with a copy button and the MCP address, never again; a key revoked.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { useAgentKeys } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Agent, AgentKey } from '../../api/types.js';
import { formatDateTime } from '../../lib/time.js';
import { submitted } from '../form-state.js';
import { CopyText, ShownOnce } from '../shown-once.js';
import { Field, FormError, LoadError, Loading, SubmitActions } from '../ui.js';
import { personZone } from './agent-values.js';

/** A key just made: its label, its secret and the MCP address to use it at. */
interface Shown {
  label: string;
  value: string;
  mcpUrl: string;
}

export function KeysSection(props: { agent: Agent }) {
  const { agent } = props;
  const [shown, setShown] = useState<Shown | null>(null);
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">Keys</h2>
      {shown ? <ShownKey shown={shown} onDone={() => setShown(null)} /> : null}
      <KeyList agentId={agent.id} />
      {agent.status === 'disabled' ? null : <NewKey agentId={agent.id} onCreated={setShown} />}
    </section>
  );
}

/** The agent's keys, each revocable until revoked. */
function KeyList(props: { agentId: number }) {
  const queryClient = useQueryClient();
  const keys = useAgentKeys(props.agentId);
  const revoke = useMutation({
    mutationFn: (keyId: number) =>
      unwrap(
        authed.DELETE('/api/agents/{id}/keys/{keyId}', { params: { path: { id: props.agentId, keyId } } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.agentKeys(props.agentId) }),
  });
  const zone = personZone();
  return (
    <>
      {keys.isPending ? <Loading /> : null}
      {keys.isError ? <LoadError error={keys.error} /> : null}
      {keys.data?.length === 0 ? <p className="empty">No keys yet.</p> : null}
      {keys.data?.length ? (
        <ul className="record-list keys">
          {keys.data.map((k) => (
            <KeyRow key={k.id} agentKey={k} zone={zone} revoke={revoke} />
          ))}
        </ul>
      ) : null}
      {revoke.isError ? (
        <p role="alert" className="error">
          {errorText(revoke.error)}
        </p>
      ) : null}
    </>
  );
}

/** A new key by its label; made, it goes to `onCreated` to be shown once. */
function NewKey(props: { agentId: number; onCreated: (shown: Shown) => void }) {
  const queryClient = useQueryClient();
  const [label, setLabel] = useState('');
  const create = useMutation({
    // Kept nowhere once this screen is left: the key is in `shown` only.
    gcTime: 0,
    mutationFn: () =>
      unwrap(
        authed.POST('/api/agents/{id}/keys', { params: { path: { id: props.agentId } }, body: { label } }),
      ),
    onSuccess: (created) => {
      props.onCreated({ label: created.label, value: created.key, mcpUrl: created.mcpUrl });
      setLabel('');
      create.reset();
      return queryClient.invalidateQueries({ queryKey: queryKeys.agentKeys(props.agentId) });
    },
  });
  const errors = fieldErrors(create.error);
  return (
    <form noValidate onSubmit={submitted(create.mutate)}>
      <Field
        name="label"
        label="New key's label"
        value={label}
        error={errors.label}
        hint="Where it will be used, e.g. “laptop assistant”."
        onChange={setLabel}
      />
      {create.isError ? <FormError error={create.error} shown={['label']} /> : null}
      <SubmitActions pending={create.isPending} label="Create key" />
    </form>
  );
}

function ShownKey({ shown, onDone }: { shown: Shown; onDone: () => void }) {
  return (
    <ShownOnce
      title={`Key “${shown.label}”`}
      level={3}
      hint="Copy it now: it is shown this once. Give it to your assistant as its MCP key (header x-agent-key), with the MCP address below."
      value={shown.value}
      valueId="agent-key"
      copyLabel="Copy key"
      beside={
        <CopyText label="MCP address:" value={shown.mcpUrl} valueId="mcp-url" copyLabel="Copy MCP address" />
      }
      onDone={onDone}
    />
  );
}

function KeyRow(props: {
  agentKey: AgentKey;
  zone: string;
  revoke: { isPending: boolean; mutate: (keyId: number) => void };
}) {
  const { agentKey: k, zone, revoke } = props;
  return (
    <li>
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
  );
}
