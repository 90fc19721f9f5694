// Pieces the account screens share beyond ui.tsx: a status line that announces what was saved,
// a yes/no value in words, and a colour sample.
import { type ReactNode, useEffect, useRef } from 'react';

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
