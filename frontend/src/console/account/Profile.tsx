// The profile: the signed-in person (as the API knows them), and the active organisation's
// booking-page branding (logo, headline, description, colour) and weekly schedule. OWNER and
// ADMIN edit the organisation; other members read it. A resource's resolved schedule shows
// which level each section comes from.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { useActiveOrganisation, useMe } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation } from '../../api/types.js';
import { Status, Swatch } from '../account-ui.js';
import { submitted, useFormState } from '../form-state.js';
import { isAdmin } from '../organisations/roles.js';
import { ResourceSchedule, ScheduleEditor } from '../schedule/account-schedule.js';
import { RequireTwoFactor } from '../security/RequireTwoFactor.js';
import { Field, FormError, LoadError, Loading, SubmitActions, TextArea } from '../ui.js';

export default function Profile() {
  const org = useActiveOrganisation();
  return (
    <main className="page">
      <h1>Profile</h1>
      <Person />
      {org.isPending ? <Loading /> : null}
      {org.isError ? <LoadError error={org.error} /> : null}
      {org.data && !org.active ? (
        <p className="empty">
          No active organisation: choose or create one under <Link to="/app">your organisations</Link> to set
          its branding and schedule.
        </p>
      ) : null}
      {org.active ? <OrganisationProfile key={org.active.id} org={org.active} /> : null}
    </main>
  );
}

function Person() {
  const me = useMe();
  return (
    <section aria-labelledby="person-heading">
      <h2 id="person-heading">You</h2>
      {me.isPending ? <Loading /> : null}
      {me.isError ? <LoadError error={me.error} /> : null}
      {me.data ? (
        <>
          <dl className="summary">
            <dt>Name</dt>
            <dd>{me.data.name}</dd>
            <dt>Email</dt>
            <dd>{me.data.email}</dd>
            <dt>Plan</dt>
            <dd>{me.data.plan === 'ENTERPRISE' ? 'Enterprise' : 'Store'}</dd>
            <dt>Account since</dt>
            <dd>{new Date(me.data.createdAt).toLocaleDateString()}</dd>
          </dl>
          <p className="hint">
            What the service holds about you, and your data export, are under{' '}
            <Link to="/app/privacy">Privacy</Link>.
          </p>
        </>
      ) : null}
    </section>
  );
}

function OrganisationProfile(props: { org: Organisation }) {
  const { org } = props;
  return (
    <section aria-labelledby="org-heading">
      <h2 id="org-heading">{org.name}</h2>
      {isAdmin(org.role) ? null : (
        <p className="hint">
          Only owners and admins change the branding and schedule; you see them as they are.
        </p>
      )}
      {org.slug ? (
        <p>
          Booking page: <a href={`/book/${org.slug}`}>/book/{org.slug}</a>
        </p>
      ) : (
        <p className="hint">No booking page address yet (set one when creating the organisation).</p>
      )}
      {isAdmin(org.role) ? <BrandingForm org={org} /> : <BrandingSummary org={org} />}
      {org.role === 'OWNER' ? <RequireTwoFactor org={org} /> : null}
      <ScheduleEditor org={org} />
      <ResourceSchedule org={org} />
    </section>
  );
}

function BrandingSummary(props: { org: Organisation }) {
  const { org } = props;
  const none = <span className="hint">not set</span>;
  return (
    <>
      <h3>Booking page branding</h3>
      <dl className="summary">
        <dt>Headline</dt>
        <dd>{org.publicBookingHeadline ?? none}</dd>
        <dt>Description</dt>
        <dd>{org.publicBookingDescription ?? none}</dd>
        <dt>Logo</dt>
        <dd className="url">{org.logoUrl ?? none}</dd>
        <dt>Colour</dt>
        <dd>
          {org.color ? (
            <>
              <Swatch colour={org.color} /> {org.color}
            </>
          ) : (
            none
          )}
        </dd>
      </dl>
    </>
  );
}

const BRANDING_FIELDS = ['logoUrl', 'publicBookingHeadline', 'publicBookingDescription', 'color'];

interface BrandingValues {
  logoUrl: string;
  publicBookingHeadline: string;
  publicBookingDescription: string;
  color: string;
}

/** Saves the branding, then the colour on its own route when it changed. */
function useSaveBranding(org: Organisation, form: BrandingValues) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      await unwrap(
        authed.PATCH('/api/organisations/{id}', {
          params: { path: { id: org.id } },
          body: {
            logoUrl: form.logoUrl.trim() || null,
            publicBookingHeadline: form.publicBookingHeadline,
            publicBookingDescription: form.publicBookingDescription,
          },
        }),
      );
      // The colour has its own route; an empty field leaves the colour as it is (the API cannot clear it).
      if (form.color.trim() && form.color.trim().toLowerCase() !== org.color)
        await unwrap(
          authed.PATCH('/api/organisations/{id}/color', {
            params: { path: { id: org.id } },
            body: { color: form.color.trim() },
          }),
        );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.organisations() }),
  });
}

function BrandingForm(props: { org: Organisation }) {
  const { org } = props;
  const { values: form, bind } = useFormState({
    logoUrl: org.logoUrl ?? '',
    publicBookingHeadline: org.publicBookingHeadline ?? '',
    publicBookingDescription: org.publicBookingDescription ?? '',
    color: org.color ?? '',
  });
  const save = useSaveBranding(org, form);
  const field = bind(fieldErrors(save.error));
  return (
    <form noValidate aria-labelledby="branding-heading" onSubmit={submitted(save.mutate)}>
      <h3 id="branding-heading">Booking page branding</h3>
      <Field
        label="Headline"
        required={false}
        hint={`Empty: “Book with ${org.name}”.`}
        {...field.text('publicBookingHeadline')}
      />
      <TextArea label="Description" {...field.text('publicBookingDescription')} />
      <Field label="Logo address (https)" type="url" required={false} {...field.text('logoUrl')} />
      <div className="colour-field">
        <Field
          label="Colour (#rrggbb)"
          required={false}
          hint="Buttons and highlights of the booking page; text on it is black or white, whichever reads better."
          {...field.text('color')}
        />
        <Swatch
          colour={/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(form.color.trim()) ? form.color.trim() : org.color}
        />
      </div>
      {save.isError ? <FormError error={save.error} shown={BRANDING_FIELDS} /> : null}
      <Status>{save.isSuccess && !save.isPending ? 'Branding saved.' : ''}</Status>
      <SubmitActions pending={save.isPending} label="Save branding" />
    </form>
  );
}
