// The person's consent decisions, each given or withdrawn here, and their history, newest first.
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { usePrivacyConsents } from '../../api/account-hooks.js';
import { unwrap } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Consent, ConsentType } from '../../api/types.js';
import { Status } from '../account-ui.js';
import { LoadError, Loading } from '../ui.js';
import { CONSENT_TYPES, CONSENT_WORDS, when } from './privacy-words.js';

type ConsentChange = { type: ConsentType; decision: Consent['decision']; policyVersion: string };

/** Gives or withdraws a consent; the decisions, their history and the access report change. */
function useConsentChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (v: ConsentChange) =>
      unwrap(
        authed.PUT('/api/compliance/me/privacy/consents/{consentType}', {
          params: { path: { consentType: v.type } },
          body: { decision: v.decision, policyVersion: v.policyVersion, source: 'console' },
        }),
      ),
    onSuccess: () =>
      Promise.all(
        [queryKeys.privacyConsents(), queryKeys.privacyConsentHistory(), queryKeys.privacyAccess()].map(
          (queryKey) => queryClient.invalidateQueries({ queryKey }),
        ),
      ),
  });
}

export function ConsentSection() {
  const consents = usePrivacyConsents();
  const change = useConsentChange();
  return (
    <section aria-labelledby="consent-heading">
      <h2 id="consent-heading">Consents</h2>
      {consents.isPending ? <Loading /> : null}
      {consents.isError ? <LoadError error={consents.error} /> : null}
      {consents.data ? (
        <ul className="record-list consents">
          {CONSENT_TYPES.map((type) => (
            <ConsentRow
              key={type}
              type={type}
              current={consents.data.find((c) => c.consentType === type)}
              pending={change.isPending}
              onChange={change.mutate}
            />
          ))}
        </ul>
      ) : null}
      {change.isError ? (
        <p role="alert" className="error">
          {errorText(change.error)}
        </p>
      ) : null}
      <Status>{change.isSuccess && !change.isPending ? 'Consent recorded.' : ''}</Status>
      <ConsentHistory />
    </section>
  );
}

/** One kind of consent: the person's last decision on it, and the button that turns it over. */
function ConsentRow(props: {
  type: ConsentType;
  current: Consent | undefined;
  pending: boolean;
  onChange: (change: ConsentChange) => void;
}) {
  const { type, current } = props;
  const accepted = current?.decision === 'accepted';
  // The API publishes no current policy version: a decision names the version of the last one.
  const policyVersion = current?.policyVersion ?? '1';
  return (
    <li>
      <span>
        <strong>{CONSENT_WORDS[type]}</strong>{' '}
        <span className="hint">
          {current
            ? `${accepted ? 'given' : 'withdrawn'} ${when(current.decidedAt)} (version ${current.policyVersion})`
            : 'not decided'}
        </span>
      </span>
      <button
        type="button"
        className="secondary"
        disabled={props.pending}
        onClick={() => props.onChange({ type, decision: accepted ? 'revoked' : 'accepted', policyVersion })}
      >
        {accepted ? 'Withdraw' : 'Give'} consent: {CONSENT_WORDS[type]}
      </button>
    </li>
  );
}

function ConsentHistory() {
  const history = useInfiniteQuery({
    queryKey: queryKeys.privacyConsentHistory(),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        authed.GET('/api/compliance/me/privacy/consents/history', {
          params: { query: { limit: 20, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const items = history.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <h3>History</h3>
      {history.isPending ? <Loading /> : null}
      {history.isError ? <LoadError error={history.error} /> : null}
      {history.data && items.length === 0 ? <p className="empty">No decisions yet.</p> : null}
      {items.length > 0 ? (
        <ul className="history">
          {items.map((c) => (
            <li key={`${c.consentType}-${c.decidedAt}-${c.decision}`}>
              {when(c.decidedAt)}: {CONSENT_WORDS[c.consentType]}{' '}
              {c.decision === 'accepted' ? 'given' : 'withdrawn'}{' '}
              <span className="hint">
                (version {c.policyVersion}
                {c.source ? `, through ${c.source}` : ''})
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {history.hasNextPage ? (
        <button
          type="button"
          className="secondary"
          disabled={history.isFetchingNextPage}
          onClick={() => history.fetchNextPage()}
        >
          Show older decisions
        </button>
      ) : null}
    </>
  );
}
