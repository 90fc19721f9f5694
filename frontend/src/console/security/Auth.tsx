// Sign in and register: the session answer goes to api/session.ts; the API's refusals land on their fields.
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { errorText, fieldErrors } from '../../api/errors.js';
import { register, type SecondStep, secondStepOf, signIn } from '../../api/session.js';
import { Field } from '../ui.js';
import { PasskeySignIn, SecondStepForm } from './SignInSteps.js';

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [secondStep, setSecondStep] = useState<SecondStep | null>(null);
  const submit = useMutation({
    mutationFn: () => signIn({ email, password }).then(() => null, secondStepOf),
    onSuccess: (step) => {
      setPassword('');
      setSecondStep(step);
    },
  });
  const errors = fieldErrors(submit.error);
  if (secondStep) return <SecondStepForm step={secondStep} onRestart={() => setSecondStep(null)} />;
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
        <Link to="/forgot-password">Forgot password?</Link>
      </p>
      <PasskeySignIn />
      <p>
        New here? <Link to="/app/register">Create an account</Link>
      </p>
    </main>
  );
}

export function Register() {
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
