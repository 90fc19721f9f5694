// "Add to calendar" links of the two large web calendars, beside the .ics download: Google
// Calendar's and Outlook on the web's new-event forms, filled in with the booking. The URLs are
// the service's own (src/lib/calendar-links.ts), which its booking mails use too.
import { useTranslation } from 'react-i18next';
import { googleCalendarUrl, outlookCalendarUrl } from '../../../src/lib/calendar-links.js';

export function CalendarLinks(props: { start: string; end: string; title: string; details?: string }) {
  const { t } = useTranslation();
  const event = { title: props.title, start: props.start, end: props.end, details: props.details };
  return (
    <>
      <a
        className="button secondary"
        href={googleCalendarUrl(event)}
        target="_blank"
        rel="noopener noreferrer"
      >
        {t('common.addToGoogle')}
      </a>
      <a
        className="button secondary"
        href={outlookCalendarUrl(event)}
        target="_blank"
        rel="noopener noreferrer"
      >
        {t('common.addToOutlook')}
      </a>
    </>
  );
}
