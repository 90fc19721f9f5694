import { type ReactNode, useId } from 'react';

/**
 * A step that cannot be undone, asked once more: its title, what it does (`children`), the
 * button that does it and the way back. One look and one keyboard order on every page.
 */
export function ConfirmBox(props: {
  title: string;
  /** The heading's level where it stands (a section of a page: 3). */
  level?: 2 | 3;
  confirm: string;
  keep: string;
  pending: boolean;
  onConfirm: () => void;
  onKeep: () => void;
  children?: ReactNode;
}) {
  const id = useId();
  const Heading = props.level === 3 ? 'h3' : 'h2';
  return (
    <section className="confirm-box" aria-labelledby={id}>
      <Heading id={id}>{props.title}</Heading>
      {props.children}
      <div className="actions">
        <button type="button" className="primary danger" disabled={props.pending} onClick={props.onConfirm}>
          {props.confirm}
        </button>
        <button type="button" className="secondary" onClick={props.onKeep}>
          {props.keep}
        </button>
      </div>
    </section>
  );
}
