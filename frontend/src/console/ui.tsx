// The console's form pieces: a label on every input, the API's message under the field it
// refused (aria-describedby), and the summary of a refusal that names no shown field.
import type { ReactNode } from 'react';
import { errorText, fieldErrors } from '../api/errors.js';

/** One labelled input with the API's message for it. */
export function Field(props: {
  name: string;
  label: string;
  type?: string;
  autoComplete?: string;
  required?: boolean;
  value: string;
  error?: string | undefined;
  hint?: string;
  min?: number;
  step?: string;
  onChange: (value: string) => void;
}) {
  const {
    name,
    label,
    type = 'text',
    autoComplete,
    required = true,
    value,
    error,
    hint,
    min,
    step,
    onChange,
  } = props;
  const described = [error ? `e-${name}` : null, hint ? `h-${name}` : null].filter(Boolean).join(' ');
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
        min={min}
        step={step}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {hint ? (
        <p className="hint" id={`h-${name}`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={`e-${name}`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled select. */
export function Select(props: {
  name: string;
  label: string;
  value: string;
  error?: string | undefined;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
  const { name, label, value, error, onChange, children } = props;
  return (
    <div className="field">
      <label htmlFor={`f-${name}`}>{label}</label>
      <select
        id={`f-${name}`}
        name={name}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `e-${name}` : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        {children}
      </select>
      {error ? (
        <p className="field-error" id={`e-${name}`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A checkbox with its label after it. */
export function Check(props: {
  name: string;
  label: string;
  checked: boolean;
  error?: string | undefined;
  onChange: (checked: boolean) => void;
}) {
  const { name, label, checked, error, onChange } = props;
  return (
    <div className="field check">
      <input
        id={`f-${name}`}
        name={name}
        type="checkbox"
        checked={checked}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `e-${name}` : undefined}
        onChange={(e) => onChange(e.target.checked)}
      />
      <label htmlFor={`f-${name}`}>{label}</label>
      {error ? (
        <p className="field-error" id={`e-${name}`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The refusal in words, unless every refused field is one the form shows (those carry their
 * own message): `shown` lists the form's field names.
 */
export function FormError(props: { error: unknown; shown: string[] }) {
  const { error, shown } = props;
  if (!error) return null;
  const fields = Object.keys(fieldErrors(error));
  const onForm = fields.length > 0 && fields.every((f) => shown.includes(f));
  return (
    <div role="alert" className="error">
      <p>{onForm ? 'Please check the highlighted fields.' : errorText(error)}</p>
      {!onForm && fields.length > 0 ? (
        <ul>
          {Object.entries(fieldErrors(error)).map(([f, m]) => (
            <li key={f}>
              {f}: {m}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Loading() {
  return <p className="loading">Loading…</p>;
}

/** A query's failure, in words. */
export function LoadError(props: { error: unknown }) {
  return (
    <p role="alert" className="error">
      {errorText(props.error)}
    </p>
  );
}
