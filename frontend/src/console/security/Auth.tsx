// Sign in and register: the session answer goes to api/session.ts; the API's refusals land on their fields.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { errorText, fieldErrors } from '../../api/errors.js';
import { register, type SecondStep, secondStepOf, signIn } from '../../api/session.js';
import { submitted, useFormState } from '../form-state.js';
import { Field, SubmitActions } from '../ui.js';
import { PasskeySignIn, SecondStepForm } from './SignInSteps.js';

export function SignIn() {
  const { values, setValues, bind } = useFormState({ email: '', password: '' });
  const [secondStep, setSecondStep] = useState<SecondStep | null>(null);
  const submit = useMutation({
    mutationFn: () => signIn(values).then(() => null, secondStepOf),
    onSuccess: (step) => {
      setValues((v) => ({ ...v, password: '' }));
      setSecondStep(step);
    },
  });
  const field = bind(fieldErrors(submit.error));
  if (secondStep) return <SecondStepForm step={secondStep} onRestart={() => setSecondStep(null)} />;
  return (
    <main className="page">
      <h1>Sign in</h1>
      <form onSubmit={submitted(submit.mutate)}>
        <Field label="Email" type="email" autoComplete="email" {...field.text('email')} />
        <Field label="Password" type="password" autoComplete="current-password" {...field.text('password')} />
        <Refused error={submit.error} />
        <SubmitActions pending={submit.isPending} label="Sign in" />
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
  const { values, bind } = useFormState({ name: '', email: '', password: '' });
  const submit = useMutation({ mutationFn: () => register(values.name, values.email, values.password) });
  const field = bind(fieldErrors(submit.error));
  return (
    <main className="page">
      <h1>Create an account</h1>
      <form onSubmit={submitted(submit.mutate)}>
        <Field label="Your name" autoComplete="name" {...field.text('name')} />
        <Field label="Email" type="email" autoComplete="email" {...field.text('email')} />
        <Field
          label="Password (at least 10 characters)"
          type="password"
          autoComplete="new-password"
          {...field.text('password')}
        />
        <Refused error={submit.error} />
        <SubmitActions pending={submit.isPending} label="Create account" />
      </form>
      <p>
        Have an account? <Link to="/app/sign-in">Sign in</Link>
      </p>
    </main>
  );
}

/** Why the service refused to sign in or register, in words. */
function Refused(props: { error: unknown }) {
  return props.error ? (
    <p role="alert" className="error">
      {errorText(props.error)}
    </p>
  ) : null;
}
