import { useTranslation } from 'react-i18next';
import type { Alternative } from '../api/types.js';
import { useCustomerErrors } from '../i18n/customer-errors.js';
import { useLocale } from '../i18n/customer-language.js';
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
  const { t } = useTranslation();
  const { errorText } = useCustomerErrors();
  const locale = useLocale();
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
          <p>{t('book.freeInstead')}</p>
          <ul className="alternatives">
            {alternatives.map((a) => (
              <li key={`${a.startTime}-${a.resourceId}`}>
                <button
                  type="button"
                  className="time"
                  onClick={() => onPick({ start: a.startTime, end: a.endTime, resourceId: a.resourceId })}
                >
                  {formatDateTime(a.startTime, zone, locale)}
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
