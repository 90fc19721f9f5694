// The signed-in console (/app), loaded only when visited so the booking page stays small.
// Today: sign in, register, and the organisations screen (create, make active). The other
// screens of issue 27 (types, resources, reservations, agents...) are still to come; the API
// does all of it meanwhile.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { unwrap } from '../api/client.js';
import { errorText, fieldErrors } from '../api/errors.js';
import { useBrandColour } from '../components/Branding.js';
import { visitorZone, zoneChoices } from '../lib/time.js';
import { authed, refresh, register, signIn, signOut, useSession } from './session.js';

export default function ConsoleApp() {
  const session = useSession();
  const [resuming, setResuming] = useState(session === null);
  useBrandColour(null);
  useEffect(() => {
    if (!resuming) return;
    refresh().finally(() => setResuming(false));
  }, [resuming]);
  if (resuming) return <p className="loading">Loading…</p>;
  return (
    <div className="console">
      <header className="console-bar">
        <Link to="/app" className="console-home">
          Console
        </Link>
        {session ? (
          <span>
            {session.user.name}{' '}
            <button type="button" className="link" onClick={() => signOut()}>
              Sign out
            </button>
          </span>
        ) : null}
      </header>
      <Routes>
        <Route path="sign-in" element={session ? <Navigate to="/app" replace /> : <SignIn />} />
        <Route path="register" element={session ? <Navigate to="/app" replace /> : <Register />} />
        <Route path="*" element={session ? <Organisations /> : <Navigate to="/app/sign-in" replace />} />
      </Routes>
    </div>
  );
}

/** One labelled input with the API's message for it. */
function Field(props: {
  name: string;
  label: string;
  type?: string;
  autoComplete?: string;
  required?: boolean;
  value: string;
  error?: string | undefined;
  onChange: (value: string) => void;
}) {
  const { name, label, type = 'text', autoComplete, required = true, value, error, onChange } = props;
  return (
    <div className="field">
      <label htmlFor={`f-${name}`}>{label}</label>
      <input
        id={`f-${name}`}
        name={name}
        type={type}
        autoComplete={autoComplete}
        required={required}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `e-${name}` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {error ? (
        <p className="field-error" id={`e-${name}`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useMutation({ mutationFn: () => signIn(email, password) });
  const errors = fieldErrors(submit.error);
  return (
    <main className="page">
      <h1>Sign in</h1>
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          submit.mutate();
        }}
      >
        <Field
          name="email"
          label="Email"
          type="email"
          autoComplete="email"
          value={email}
          error={errors.email}
          onChange={setEmail}
        />
        <Field
          name="password"
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          error={errors.password}
          onChange={setPassword}
        />
        {submit.isError ? (
          <p role="alert" className="error">
            {errorText(submit.error)}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={submit.isPending}>
            Sign in
          </button>
        </div>
      </form>
      <p>
        New here? <Link to="/app/register">Create an account</Link>
      </p>
    </main>
  );
}

function Register() {
  const [values, setValues] = useState({ name: '', email: '', password: '' });
  const submit = useMutation({ mutationFn: () => register(values.name, values.email, values.password) });
  const errors = fieldErrors(submit.error);
  const field = (name: keyof typeof values) => (value: string) => setValues((v) => ({ ...v, [name]: value }));
  return (
    <main className="page">
      <h1>Create an account</h1>
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          submit.mutate();
        }}
      >
        <Field
          name="name"
          label="Your name"
          autoComplete="name"
          value={values.name}
          error={errors.name}
          onChange={field('name')}
        />
        <Field
          name="email"
          label="Email"
          type="email"
          autoComplete="email"
          value={values.email}
          error={errors.email}
          onChange={field('email')}
        />
        <Field
          name="password"
          label="Password (at least 10 characters)"
          type="password"
          autoComplete="new-password"
          value={values.password}
          error={errors.password}
          onChange={field('password')}
        />
        {submit.isError ? (
          <p role="alert" className="error">
            {errorText(submit.error)}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={submit.isPending}>
            Create account
          </button>
        </div>
      </form>
      <p>
        Have an account? <Link to="/app/sign-in">Sign in</Link>
      </p>
    </main>
  );
}

function Organisations() {
  const queryClient = useQueryClient();
  const location = useLocation();
  const navigate = useNavigate();
  const list = useQuery({
    queryKey: ['organisations'],
    queryFn: () => unwrap(authed.GET('/api/organisations')),
  });
  const makeActive = useMutation({
    mutationFn: (organisationId: number) =>
      unwrap(authed.PATCH('/api/organisations/active', { body: { organisationId } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['organisations'] }),
  });
  const [form, setForm] = useState({ name: '', slug: '', timezone: visitorZone() });
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        authed.POST('/api/organisations', {
          body: { name: form.name, timezone: form.timezone, ...(form.slug ? { slug: form.slug } : {}) },
        }),
      ),
    onSuccess: () => {
      setForm({ name: '', slug: '', timezone: form.timezone });
      return queryClient.invalidateQueries({ queryKey: ['organisations'] });
    },
  });
  const errors = fieldErrors(create.error);
  useEffect(() => {
    if (location.pathname !== '/app' && location.pathname !== '/app/organisations')
      navigate('/app', { replace: true });
  }, [location.pathname, navigate]);
  return (
    <main className="page">
      <h1>Your organisations</h1>
      {list.isPending ? <p className="loading">Loading…</p> : null}
      {list.isError ? (
        <p role="alert" className="error">
          {errorText(list.error)}
        </p>
      ) : null}
      {list.data && list.data.length === 0 ? (
        <p className="empty">You do not belong to an organisation yet. Create one below.</p>
      ) : null}
      {list.data && list.data.length > 0 ? (
        <ul className="org-list">
          {list.data.map((org) => (
            <li key={org.id}>
              <div>
                <strong>{org.name}</strong> <span className="hint">{org.role.toLowerCase()}</span>
                {org.slug ? (
                  <div className="hint">
                    Booking page: <a href={`/book/${org.slug}`}>/book/{org.slug}</a>
                  </div>
                ) : null}
              </div>
              {org.isActiveOrganisation ? (
                <span className="badge">Active</span>
              ) : (
                <button type="button" className="secondary" onClick={() => makeActive.mutate(org.id)}>
                  Make active
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {makeActive.isError ? (
        <p role="alert" className="error">
          {errorText(makeActive.error)}
        </p>
      ) : null}
      <h2>New organisation</h2>
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Field
          name="name"
          label="Name"
          value={form.name}
          error={errors.name}
          onChange={(name) => setForm((f) => ({ ...f, name }))}
        />
        <Field
          name="slug"
          label="Booking page address (optional, e.g. salon-ute)"
          required={false}
          value={form.slug}
          error={errors.slug}
          onChange={(slug) => setForm((f) => ({ ...f, slug }))}
        />
        <div className="field">
          <label htmlFor="f-timezone">Time zone</label>
          <select
            id="f-timezone"
            value={form.timezone}
            onChange={(e) => setForm((f) => ({ ...f, timezone: e.target.value }))}
          >
            {zoneChoices(form.timezone).map((z) => (
              <option key={z} value={z}>
                {z.replaceAll('_', ' ')}
              </option>
            ))}
          </select>
        </div>
        {create.isError && !Object.keys(errors).length ? (
          <p role="alert" className="error">
            {errorText(create.error)}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={create.isPending}>
            Create organisation
          </button>
        </div>
      </form>
    </main>
  );
}
