// The console's form pieces: a label on every input, the API's message under the field it
// refused (aria-describedby), the summary of a refusal that names no shown field, and the submit
// button (form-state.ts binds the fields to a form's values).
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../api/client.js';
import { errorText, fieldErrors, otherFieldErrors } from '../api/errors.js';

/** The way to what a refusal asks for, where the console has one (two-factor: Security). */
function NextStep(props: { error: unknown }) {
  if (!(props.error instanceof ApiError) || props.error.code !== 'TWO_FACTOR_REQUIRED') return null;
  return (
    <>
      {' '}
      <Link to="/app/security">Set up two-factor</Link>
    </>
  );
}

/** The attributes a labelled control takes from its frame: its id, and what describes it. */
interface ControlAttributes {
  id: string;
  name: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** What a control named `name` takes from its frame: its id, and its hint and message ids. */
function controlAttributes(name: string, error: string | undefined, hint?: string): ControlAttributes {
  const described = [error ? `e-${name}` : null, hint ? `h-${name}` : null].filter(Boolean).join(' ');
  return {
    id: `f-${name}`,
    name,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': described || undefined,
  };
}

/** The API's message for the field named `name` (what its control's aria-describedby names). */
function FieldError(props: { name: string; error: string | undefined }) {
  return props.error ? (
    <p className="field-error" id={`e-${props.name}`}>
      {props.error}
    </p>
  ) : null;
}

/** A label, the control it names, its hint and the API's message for it (aria-describedby). */
function Labelled(props: {
  name: string;
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
  control: (attributes: ControlAttributes) => ReactNode;
}) {
  const { name, label, error, hint } = props;
  return (
    <div className="field">
      <label htmlFor={`f-${name}`}>{label}</label>
      {props.control(controlAttributes(name, error, hint))}
      {hint ? (
        <p className="hint" id={`h-${name}`}>
          {hint}
        </p>
      ) : null}
      <FieldError name={name} error={error} />
    </div>
  );
}

/** One labelled input with the API's message for it. */
export function Field(props: {
  name: string;
  label: string;
  type?: string;
  autoComplete?: string;
  inputMode?: 'numeric' | 'text' | 'email';
  required?: boolean;
  value: string;
  error?: string | undefined;
  hint?: string;
  min?: number;
  step?: string;
  onChange: (value: string) => void;
}) {
  const { type = 'text', autoComplete, inputMode, required = true, value, min, step, onChange } = props;
  return (
    <Labelled
      {...props}
      control={(attributes) => (
        <input
          {...attributes}
          type={type}
          autoComplete={autoComplete}
          inputMode={inputMode}
          required={required}
          value={value}
          min={min}
          step={step}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    />
  );
}

/** A labelled multi-line input with the API's message for it. */
export function TextArea(props: {
  name: string;
  label: string;
  value: string;
  error?: string | undefined;
  hint?: string;
  required?: boolean;
  onChange: (value: string) => void;
}) {
  const { value, required = false, onChange } = props;
  return (
    <Labelled
      {...props}
      control={(attributes) => (
        <textarea
          {...attributes}
          rows={3}
          required={required}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    />
  );
}

/** A labelled select. */
export function Select(props: {
  name: string;
  label: string;
  value: string;
  error?: string | undefined;
  hint?: string;
  required?: boolean;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
  const { value, required = false, onChange, children } = props;
  return (
    <Labelled
      {...props}
      control={(attributes) => (
        <select {...attributes} required={required} value={value} onChange={(e) => onChange(e.target.value)}>
          {children}
        </select>
      )}
    />
  );
}

/** A checkbox with its label after it. */
export function Check(props: {
  name: string;
  label: string;
  checked: boolean;
  error?: string | undefined;
  required?: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
}) {
  const { name, label, checked, error, required = false, disabled, onChange } = props;
  return (
    <div className="field check">
      <input
        {...controlAttributes(name, error)}
        type="checkbox"
        required={required}
        disabled={disabled}
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
      />
      <label htmlFor={`f-${name}`}>{label}</label>
      <FieldError name={name} error={error} />
    </div>
  );
}

/**
 * A checkbox for each of `options`, at most `max` ticked (the rest turned off until one is
 * unticked); `chosen` in the order ticked. Each box is named `<prefix>-<id>`.
 */
export function LimitedChecks(props: {
  prefix: string;
  options: { id: number; name: string }[];
  chosen: number[];
  max: number;
  onChange: (chosen: number[]) => void;
}) {
  const { prefix, options, chosen, max, onChange } = props;
  const ticked = new Set(chosen);
  return (
    <>
      {options.map((o) => (
        <Check
          key={o.id}
          name={`${prefix}-${o.id}`}
          label={o.name}
          checked={ticked.has(o.id)}
          disabled={ticked.size >= max && !ticked.has(o.id)}
          onChange={(on) => onChange(on ? [...chosen, o.id] : chosen.filter((id) => id !== o.id))}
        />
      ))}
    </>
  );
}

/** The form's submit button, kept from a second press while the form is sent. */
export function SubmitActions(props: { pending: boolean; label: string }) {
  return (
    <div className="actions">
      <button type="submit" className="primary" disabled={props.pending}>
        {props.label}
      </button>
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
  const onForm = Object.keys(fieldErrors(error)).length > 0;
  // Refusals of fields this form does not show, in words, named by their field.
  const others =
    error instanceof ApiError && error.code === 'VALIDATION_FAILED' ? otherFieldErrors(error, shown) : [];
  return (
    <div role="alert" className="error">
      <p>
        {others.length > 0
          ? 'This was not accepted:'
          : onForm
            ? 'Please check the highlighted fields.'
            : errorText(error)}
        <NextStep error={error} />
      </p>
      {others.length > 0 ? (
        <ul>
          {others.map((words) => (
            <li key={words}>{words}</li>
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
      <NextStep error={props.error} />
    </p>
  );
}

/** Each refused request of a screen, in words; `requests` named by their keys. */
export function RequestErrors(props: { requests: Record<string, { isError: boolean; error: unknown }> }) {
  return (
    <>
      {Object.entries(props.requests).map(([name, m]) =>
        m.isError ? (
          <p role="alert" className="error" key={name}>
            {errorText(m.error)}
          </p>
        ) : null,
      )}
    </>
  );
}
