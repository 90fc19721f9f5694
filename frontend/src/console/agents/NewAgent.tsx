// A new agent: its name and description, and what it may do (a preset, or actions chosen one
// by one). Made first, its permissions set after: a refused choice leaves the agent made, and a
// new attempt only sets the permissions again.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { usePermissionData } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Agent, Catalog, PermissionGroup } from '../../api/types.js';
import { submitted } from '../form-state.js';
import { Field, FormError, LoadError, Loading, SubmitActions } from '../ui.js';
import { choiceOf, type PermissionChoice, permissionsBody } from './permissions.js';
import { PermissionsEditor } from './permissions-editor.js';

export function NewAgent() {
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

/**
 * Makes the agent, then sets its chosen actions. `created`: made already, its chosen actions
 * refused; a new attempt only sets the actions again.
 */
function useCreateAgent(catalog: Catalog, name: string, description: string, choice: PermissionChoice) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
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
  return { created, create };
}

function NewAgentForm(props: { catalog: Catalog; groups: PermissionGroup[] }) {
  const { catalog, groups } = props;
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [choice, setChoice] = useState<PermissionChoice>(() => choiceOf(undefined, groups));
  const { created, create } = useCreateAgent(catalog, name, description, choice);
  const errors = fieldErrors(create.error);
  return (
    <main className="page">
      <p>
        <Link to="/app/agents">All agents</Link>
      </p>
      <h1>New agent</h1>
      <form noValidate onSubmit={submitted(create.mutate)}>
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
        <SubmitActions pending={create.isPending} label={created ? 'Set its permissions' : 'Create agent'} />
      </form>
    </main>
  );
}
