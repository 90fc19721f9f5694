// The active organisation's embedding (OWNER, ADMIN): the sites whose pages may show its booking
// page in a frame (its embedOrigins, one origin a line), and the snippet those sites paste.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, unwrap } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { useActiveOrganisation } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation } from '../../api/types.js';
import { NoActive } from '../catalogue/Catalogue.js';
import { submitted } from '../form-state.js';
import { CopyText } from '../shown-once.js';
import { LoadError, Loading, SubmitActions } from '../ui.js';
import { DefaultLanguageForm } from './DefaultLanguage.js';
import { isAdmin } from './roles.js';

export default function Embed() {
  const org = useActiveOrganisation();
  if (org.isPending) return <Loading />;
  if (org.isError) return <LoadError error={org.error} />;
  if (!org.active) return <NoActive />;
  return <Embedding key={org.active.id} org={org.active} />;
}

/** The snippet a host site pastes where the booking page should appear. */
export const embedSnippet = (serviceOrigin: string, slug: string) =>
  `<script src="${serviceOrigin}/embed.js" data-slug="${slug}" async></script>`;

function Embedding(props: { org: Organisation }) {
  const { org } = props;
  return (
    <main className="page">
      <h1>Embed the booking page</h1>
      <p className="hint">
        Show {org.name}’s booking page on your own website: paste the snippet where it should appear, and list
        the website’s origin below. Other sites cannot show it.
      </p>
      {org.slug ? (
        <CopyText
          label="Snippet"
          value={embedSnippet(window.location.origin, org.slug)}
          valueId="embed-snippet"
          copyLabel="Copy snippet"
        />
      ) : (
        <p className="notice">Give {org.name} a booking page address (its slug) first.</p>
      )}
      {isAdmin(org.role) ? (
        <>
          <OriginsForm org={org} />
          <DefaultLanguageForm org={org} />
        </>
      ) : (
        <p className="empty">
          Allowed sites: {org.embedOrigins.length ? org.embedOrigins.join(', ') : 'none'}. Only owners and
          admins change them.
        </p>
      )}
    </main>
  );
}

/** Each refused line of the list, in words: "Line 2 (https://a.example/x): must be ...". */
function originErrors(error: unknown, lines: string[]): string[] {
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_FAILED') return [];
  return error.details.map((detail) => {
    const index = /embedOrigins\.(\d+)/.exec(detail.path ?? '')?.[1];
    return index === undefined
      ? detail.message
      : `Line ${Number(index) + 1} (${lines[Number(index)]}): ${detail.message}`;
  });
}

function OriginsForm(props: { org: Organisation }) {
  const { org } = props;
  const queryClient = useQueryClient();
  const [text, setText] = useState(org.embedOrigins.join('\n'));
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        authed.PATCH('/api/organisations/{id}', {
          params: { path: { id: org.id } },
          body: { embedOrigins: lines },
        }),
      ),
    onSuccess: (saved) => {
      setText(saved.embedOrigins.join('\n'));
      return queryClient.invalidateQueries({ queryKey: queryKeys.organisations() });
    },
  });
  const refused = originErrors(save.error, lines);
  return (
    <form onSubmit={submitted(save.mutate)}>
      <h2>Sites that may show it</h2>
      <div className="field">
        <label htmlFor="f-embed-origins">Origins, one a line (at most 10)</label>
        <textarea
          id="f-embed-origins"
          rows={4}
          value={text}
          aria-describedby="f-embed-origins-hint"
          aria-invalid={refused.length > 0}
          onChange={(e) => setText(e.target.value)}
        />
        <p className="hint" id="f-embed-origins-hint">
          Like https://www.example.com or https://shop.example.com:8443: no path, no wildcard. http only for
          localhost and 127.0.0.1.
        </p>
      </div>
      {refused.length > 0 ? (
        <div role="alert" className="error">
          <ul>
            {refused.map((words) => (
              <li key={words}>{words}</li>
            ))}
          </ul>
        </div>
      ) : save.isError ? (
        <p role="alert" className="error">
          {errorText(save.error)}
        </p>
      ) : null}
      {save.isSuccess ? <p role="status">Saved.</p> : null}
      <SubmitActions pending={save.isPending} label="Save sites" />
    </form>
  );
}
