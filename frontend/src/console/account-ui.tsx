// Pieces the account screens share beyond ui.tsx: a labelled text area, a status line that
// announces what was saved, and a yes/no value in words.
import { type ReactNode, useEffect, useRef } from 'react';

/** A labelled multi-line input with the API's message for it (the `Field` of ui.tsx, for longer text). */
export function TextArea(props: {
  name: string;
  label: string;
  value: string;
  error?: string | undefined;
  hint?: string;
  onChange: (value: string) => void;
}) {
  const { name, label, value, error, hint, onChange } = props;
  const described = [error ? `e-${name}` : null, hint ? `h-${name}` : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={`f-${name}`}>{label}</label>
      <textarea
        id={`f-${name}`}
        name={name}
        rows={3}
        value={value}
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

/** A polite live region: what the last action did (always rendered, so it is announced). */
export function Status(props: { children?: ReactNode }) {
  return (
    <p role="status" className="status-line">
      {props.children}
    </p>
  );
}

export const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** A sample of a colour, painted through the CSSOM (the CSP forbids inline style attributes). */
export function Swatch(props: { colour: string | null }) {
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    ref.current?.style.setProperty('--swatch', props.colour ?? 'transparent');
  }, [props.colour]);
  return <span ref={ref} className="swatch" aria-hidden="true" />;
}
