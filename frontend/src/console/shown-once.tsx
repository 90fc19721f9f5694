// A value shown once (a new key or signing secret) and a text to paste elsewhere, each with its
// copy button and whether the copy worked.
import { type ReactNode, useId, useState } from 'react';

/**
 * A secret shown this once (a webhook's signing secret, an agent's key), with a copy button:
 * it lives only in the caller's state, and "I have stored it" lets it go.
 */
export function ShownOnce(props: {
  title: string;
  /** The heading's level where it stands. */
  level: 2 | 3;
  /** What the secret is for, and that it is shown this once. */
  hint: string;
  value: string;
  /** The id of the element holding the value (tests read it). */
  valueId: string;
  copyLabel: string;
  /** What goes with the secret (an agent key's MCP address), under it. */
  beside?: ReactNode;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const headingId = useId();
  const Heading = props.level === 3 ? 'h3' : 'h2';
  return (
    <section className="notice secret" aria-labelledby={headingId}>
      <Heading id={headingId}>{props.title}</Heading>
      <p>{props.hint}</p>
      <p>
        <code id={props.valueId}>{props.value}</code>
      </p>
      {props.beside}
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() =>
            navigator.clipboard.writeText(props.value).then(
              () => setCopied('yes'),
              () => setCopied('no'),
            )
          }
        >
          {props.copyLabel}
        </button>
        <button type="button" className="secondary" onClick={props.onDone}>
          I have stored it
        </button>
      </div>
      <p role="status">
        {copied === 'yes'
          ? 'Copied.'
          : copied === 'no'
            ? 'The browser refused to copy: select the text.'
            : ''}
      </p>
    </section>
  );
}

/** A text to paste elsewhere (an address), with its copy button and whether the copy worked. */
export function CopyText(props: {
  label: string;
  value: string;
  /** The id of the element holding the value (tests read it). */
  valueId: string;
  copyLabel: string;
}) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <div className="copy-text">
      <span className="copy-label">{props.label}</span> <code id={props.valueId}>{props.value}</code>{' '}
      <button
        type="button"
        className="secondary"
        onClick={() =>
          navigator.clipboard.writeText(props.value).then(
            () => setCopied('yes'),
            () => setCopied('no'),
          )
        }
      >
        {props.copyLabel}
      </button>{' '}
      <span role="status">
        {copied === 'yes'
          ? 'Copied.'
          : copied === 'no'
            ? 'The browser refused to copy: select the text.'
            : ''}
      </span>
    </div>
  );
}
