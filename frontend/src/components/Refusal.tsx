import { errorText } from '../api/errors.js';
import type { Alternative } from '../api/types.js';
import { type BookableTime, formatDateTime } from '../lib/time.js';

/** A refusal in words, with the times the API offers instead as buttons. */
export function Refusal(props: {
  error: unknown;
  alternatives: Alternative[];
  zone: string;
  onPick: (time: BookableTime) => void;
  /** Refused fields the form does not show, each in words with its label. */
  others?: string[];
}) {
  const { error, alternatives, zone, onPick, others = [] } = props;
  return (
    <div role="alert" className="error">
      <p>{errorText(error)}</p>
      {others.length > 0 ? (
        <ul>
          {others.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      {alternatives.length > 0 ? (
        <>
          <p>These times are free instead:</p>
          <ul className="alternatives">
            {alternatives.map((a) => (
              <li key={`${a.startTime}-${a.resourceId}`}>
                <button
                  type="button"
                  className="time"
                  onClick={() => onPick({ start: a.startTime, end: a.endTime, resourceId: a.resourceId })}
                >
                  {formatDateTime(a.startTime, zone)}
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
