// The consent page's request: the client as it named and described itself, where it sends the
// person back, the permission sets they may grant (one chosen), approve or deny, and the account
// it is asked of. Every client-supplied value is drawn as text.
import { useState } from 'react';
import type { paths } from '../../api/schema.js';
import { currentUser } from '../../api/session.js';
import { LOOPBACK_HOSTS, safeImageUrl, webUrl } from './consent-urls.js';

export type Details =
  paths['/api/oauth/consent-details']['get']['responses'][200]['content']['application/json'];

type Group = Details['availablePermissionGroups'][number];

export function Consent(props: {
  details: Details;
  redirectParam: string | null;
  busy: boolean;
  onDecide: (approve: boolean, chosen: string | null) => void;
  onSwitchAccount: () => void;
}) {
  const { details, redirectParam, busy, onDecide, onSwitchAccount } = props;
  const name = details.clientName || details.clientId || 'An app';
  const groups = details.availablePermissionGroups.filter((group) => group.canAssign !== false);
  const [chosen, setChosen] = useState<string | null>(groups[0]?.id ?? null);
  const email = currentUser()?.email;

  return (
    <section id="view-consent" aria-labelledby="consent-title">
      <ClientHeader details={details} name={name} />
      <RedirectLine details={details} redirectParam={redirectParam} />
      <Groups groups={groups} chosen={chosen} onChoose={setChosen} />

      <p className="hint">
        The app named and described itself; Reservation Service has not checked it. Approve only if you trust
        the address above. You can revoke the app's access at any time from your agents.
      </p>

      <div className="actions decision">
        <button
          id="deny"
          type="button"
          className="secondary"
          disabled={busy}
          onClick={() => onDecide(false, null)}
        >
          Deny
        </button>
        {groups.length > 0 ? (
          <button
            id="approve"
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => onDecide(true, chosen)}
          >
            Approve
          </button>
        ) : null}
      </div>

      <p className="account account-line hint">
        Signed in as <span id="account-email">{email || 'your account'}</span>.{' '}
        <button id="switch-account" type="button" className="link" disabled={busy} onClick={onSwitchAccount}>
          Use another account
        </button>
      </p>
    </section>
  );
}

/** The client as it named, pictured and described itself. */
function ClientHeader({ details, name }: { details: Details; name: string }) {
  const logoUrl = safeImageUrl(details.clientLogoUrl);
  const [logoShown, setLogoShown] = useState(false);
  const homepage = webUrl(details.clientHomepageUrl);
  return (
    <>
      <div className="client">
        {/* Hidden until it loads: a broken or slow logo never shows as a broken image. */}
        <img
          id="client-logo"
          className="logo"
          alt={logoUrl ? `${name} logo` : ''}
          width={56}
          height={56}
          referrerPolicy="no-referrer"
          src={logoUrl ?? undefined}
          hidden={!logoShown}
          onLoad={() => setLogoShown(true)}
          onError={() => setLogoShown(false)}
        />
        <div className="client-text">
          <h1 id="consent-title" tabIndex={-1}>
            <span id="client-name">{name}</span> wants to access your account
          </h1>
          {homepage ? (
            <p id="client-homepage" className="homepage">
              <a
                id="client-homepage-link"
                href={homepage.href}
                target="_blank"
                rel="noopener noreferrer"
                title={`${name}'s homepage: ${homepage.href}`}
              >
                {homepage.host}
              </a>
            </p>
          ) : null}
        </div>
      </div>
      {details.clientDescription ? (
        <p id="client-description" className="client-description">
          {details.clientDescription}
        </p>
      ) : null}
    </>
  );
}

/** Where the app sends the person back, and whether that is this device. */
function RedirectLine({ details, redirectParam }: { details: Details; redirectParam: string | null }) {
  const redirect = webUrl(details.redirectUri ?? redirectParam);
  return (
    <p className="redirect">
      You will be sent back to{' '}
      <strong id="redirect-host" className="host">
        {redirect ? redirect.host : (details.redirectUri ?? '')}
      </strong>
      {redirect && LOOPBACK_HOSTS.has(redirect.hostname) ? (
        <span id="redirect-note" className="hint">
          {' '}
          (an app on this device)
        </span>
      ) : null}
    </p>
  );
}

/** The permission sets the person may grant, one chosen. */
function Groups(props: { groups: Group[]; chosen: string | null; onChoose: (id: string) => void }) {
  const { groups, chosen, onChoose } = props;
  return groups.length > 0 ? (
    <fieldset id="groups" className="groups">
      <legend>Choose what the app may do</legend>
      <div id="group-list" className="group-list">
        {groups.map((group, index) => (
          <GroupChoice
            key={group.id}
            group={group}
            index={index}
            checked={chosen === group.id}
            onChoose={() => onChoose(group.id)}
          />
        ))}
      </div>
    </fieldset>
  ) : (
    <p id="no-groups" className="notice">
      You have no permission set you can grant to an app. You can only deny this request.
    </p>
  );
}

function GroupChoice(props: { group: Group; index: number; checked: boolean; onChoose: () => void }) {
  const { group, index, checked, onChoose } = props;
  const id = `group-${index}`;
  const describedBy = [
    group.description ? `${id}-description` : null,
    group.highlights.length > 0 ? `${id}-highlights` : null,
  ].filter(Boolean);
  return (
    <div className="group">
      <input
        type="radio"
        name="permission-group"
        id={id}
        value={group.id}
        checked={checked}
        onChange={onChoose}
        aria-describedby={describedBy.length > 0 ? describedBy.join(' ') : undefined}
      />
      <div className="group-body">
        <label htmlFor={id} className="group-label">
          {group.label || group.id}
        </label>
        {group.description ? (
          <p id={`${id}-description`} className="group-description">
            {group.description}
          </p>
        ) : null}
        {group.highlights.length > 0 ? (
          <ul id={`${id}-highlights`} className="highlights">
            {group.highlights.map((text) => (
              <li key={text}>{text}</li>
            ))}
          </ul>
        ) : null}
      </div>
    </div>
  );
}
