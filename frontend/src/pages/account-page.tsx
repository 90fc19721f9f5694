// What the approval, consent and calendar-sync pages share: the frame with its live regions,
// focus moved to each view's heading, and the sign-in form. Keyboard-only works throughout:
// native buttons and fields, focus on the heading of every new view, outcomes announced.
import { type FormEvent, type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/client.js';
import { messageOf } from '../api/errors.js';
import { type Credentials, SecondStepRequired } from '../api/session.js';
import { useBrandColour } from '../components/Branding.js';
import './account-pages.css';

/** The tab's title, and no indexing (these pages carry requests meant for one person). */
export function usePageTitle(title: string) {
  useBrandColour(null);
  useEffect(() => {
    document.title = `${title} · Reservation Service`;
    const robots = document.createElement('meta');
    robots.name = 'robots';
    robots.content = 'noindex, nofollow';
    document.head.append(robots);
    return () => robots.remove();
  }, [title]);
}

export interface Announcer {
  status: string;
  alert: { text: string; n: number };
  /** Progress and outcomes, said politely. */
  announce: (text: string) => void;
  /** A problem, said at once; the same message twice is said twice. */
  alertError: (text: string) => void;
  clear: () => void;
}

export function useAnnouncer(): Announcer {
  const [status, setStatus] = useState('');
  const [alert, setAlert] = useState({ text: '', n: 0 });
  const announce = useCallback((text: string) => setStatus(text), []);
  const alertError = useCallback((text: string) => setAlert((a) => ({ text, n: a.n + 1 })), []);
  const clear = useCallback(() => {
    setStatus('');
    setAlert((a) => ({ text: '', n: a.n + 1 }));
  }, []);
  return { status, alert, announce, alertError, clear };
}

/** Moves focus to an element by id once it is drawn; asking again for the same id moves it again. */
export function useFocus() {
  const [request, setRequest] = useState({ id: '', n: 0 });
  useEffect(() => {
    if (request.id) document.getElementById(request.id)?.focus();
  }, [request]);
  return useCallback((id: string) => setRequest((r) => ({ id, n: r.n + 1 })), []);
}

/** The page's frame: the service's name, the live regions, then the current view. */
export function AccountPage(props: {
  busy: boolean;
  announcer: Announcer;
  children: ReactNode;
  result?: ReactNode;
}) {
  const { busy, announcer, children, result } = props;
  return (
    <main id="main" className="page account-page" aria-busy={busy}>
      <p className="service-name">Reservation Service</p>
      {result}
      <div id="status" className="announce" role="status" aria-live="polite">
        {announcer.status}
      </div>
      <div id="alert" className="alert" role="alert" aria-live="assertive">
        {announcer.alert.text ? <p key={announcer.alert.n}>{announcer.alert.text}</p> : null}
      </div>
      {children}
    </main>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <section id="view-loading" aria-label={`Loading ${what}`}>
      <p className="loading">Loading…</p>
    </section>
  );
}

interface SignInProps {
  busy: boolean;
  announcer: Announcer;
  onSignIn: (credentials: Credentials) => Promise<void>;
}

/**
 * Email and password, checked here first (the field at fault is marked and focused), then
 * `onSignIn`; its refusal lands in the page's alert region and focus returns to the password.
 * An account with two-factor on is asked for a code next.
 */
export function SignInForm(props: SignInProps) {
  const [challenge, setChallenge] = useState<string | null>(null);
  if (challenge)
    return <SecondStepForm {...props} challenge={challenge} onRestart={() => setChallenge(null)} />;
  return <PasswordForm {...props} onSecondStep={setChallenge} />;
}

type PasswordFormProps = SignInProps & { onSecondStep: (challenge: string) => void };

/** A refused sign-in in words: wrong email or password, a malformed request, or the failure's own. */
function passwordRefusal(error: unknown): string {
  if (error instanceof ApiError && error.status === 401) return 'Email or password is incorrect.';
  if (error instanceof ApiError && error.status === 400)
    return 'Enter a valid email address and your password.';
  return messageOf(error);
}

/** The email and password as typed, which of them is refused, and sending them. */
function usePasswordStep(props: PasswordFormProps) {
  const { busy, announcer, onSignIn, onSecondStep } = props;
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [invalid, setInvalid] = useState({ email: false, password: false });
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  /** The trimmed email where both fields are fine; else null, the field at fault marked and focused. */
  function checkedEmail(): string | null {
    const trimmed = email.trim();
    const emailValid = trimmed !== '' && (emailRef.current?.validity.valid ?? true);
    setInvalid({ email: !emailValid, password: !password });
    if (!emailValid) {
      announcer.alertError(trimmed ? 'Enter a valid email address.' : 'Enter your email address.');
      emailRef.current?.focus();
      return null;
    }
    if (!password) {
      announcer.alertError('Enter your password.');
      passwordRef.current?.focus();
      return null;
    }
    return trimmed;
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const trimmed = checkedEmail();
    if (trimmed === null) return;
    try {
      await onSignIn({ email: trimmed, password });
      setPassword('');
    } catch (error) {
      announcer.announce('');
      if (error instanceof SecondStepRequired) {
        announcer.announce(error.message);
        onSecondStep(error.challenge);
        return;
      }
      if (error instanceof ApiError && error.status === 401) setInvalid({ email: true, password: true });
      announcer.alertError(passwordRefusal(error));
      passwordRef.current?.focus();
    }
  }

  return { email, setEmail, password, setPassword, invalid, emailRef, passwordRef, submit };
}

function PasswordForm(props: PasswordFormProps) {
  const { email, setEmail, password, setPassword, invalid, emailRef, passwordRef, submit } =
    usePasswordStep(props);
  return (
    <form id="signin-form" method="post" noValidate onSubmit={submit}>
      <div className="field">
        <label htmlFor="email">Email</label>
        <input
          ref={emailRef}
          id="email"
          name="email"
          type="email"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          value={email}
          aria-invalid={invalid.email || undefined}
          onChange={(e) => setEmail(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="password">Password</label>
        <input
          ref={passwordRef}
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          aria-invalid={invalid.password || undefined}
          onChange={(e) => setPassword(e.target.value)}
        />
      </div>
      <div className="actions">
        <button id="signin-button" type="submit" className="primary wide" disabled={props.busy}>
          Sign in
        </button>
      </div>
    </form>
  );
}

type SecondStepProps = SignInProps & { challenge: string; onRestart: () => void };

/** The code as typed, whether it was refused, and sending it: six digits are the app's, else a recovery code. */
function useSecondStep(props: SecondStepProps) {
  const { busy, announcer, challenge, onSignIn, onRestart } = props;
  const [code, setCode] = useState('');
  const [invalid, setInvalid] = useState(false);
  const codeRef = useRef<HTMLInputElement>(null);
  useEffect(() => codeRef.current?.focus(), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const digits = code.replace(/\s/g, '');
    if (!digits) {
      setInvalid(true);
      announcer.alertError('Enter the code of your authenticator app.');
      return;
    }
    try {
      await onSignIn(
        /^\d{6}$/.test(digits) ? { challenge, code: digits } : { challenge, recoveryCode: code.trim() },
      );
    } catch (error) {
      announcer.announce('');
      if (error instanceof ApiError && error.code === 'TWO_FACTOR_INVALID') {
        setInvalid(true);
        announcer.alertError('That code is not right, or it was used already. Try the next code.');
        codeRef.current?.focus();
      } else if (error instanceof ApiError && (error.status === 401 || error.status === 410)) {
        announcer.alertError('This sign-in took too long. Enter your email and password again.');
        onRestart();
      } else {
        announcer.alertError(messageOf(error));
      }
    }
  }

  return { code, setCode, invalid, codeRef, submit };
}

/** The second step: a code of the authenticator app (six digits) or a recovery code, one field. */
function SecondStepForm(props: SecondStepProps) {
  const { code, setCode, invalid, codeRef, submit } = useSecondStep(props);
  return (
    <form id="second-step-form" method="post" noValidate onSubmit={submit}>
      <div className="field">
        <label htmlFor="code">Code of your authenticator app, or a recovery code</label>
        <input
          ref={codeRef}
          id="code"
          name="code"
          autoComplete="one-time-code"
          autoCapitalize="none"
          spellCheck={false}
          required
          value={code}
          aria-invalid={invalid || undefined}
          onChange={(e) => setCode(e.target.value)}
        />
      </div>
      <div className="actions">
        <button type="submit" className="primary wide" disabled={props.busy}>
          Verify
        </button>
        <button type="button" className="secondary" onClick={props.onRestart}>
          Start again
        </button>
      </div>
    </form>
  );
}
