// "Add to calendar" links of the two large web calendars for one booked time: the booking
// page's confirmation and the booking mails offer them beside the .ics file. Pure, without
// Node built-ins: the pages import it too. Neither provider documents these URLs as an API;
// both have kept them stable for years, and a link that stops working costs the customer
// one click (the .ics still works).

/** What an added event says. */
export interface CalendarLinkEvent {
  title: string;
  /** ISO 8601 instants. */
  start: string;
  end: string;
  details?: string | undefined;
  location?: string | undefined;
}

/** An instant in UTC as Google's `dates` want it, `20270301T093000Z`. */
const compactUtc = (instant: string) =>
  `${new Date(instant).toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;

/** An instant in UTC to the second, `2027-03-01T09:30:00Z` (Outlook's startdt/enddt). */
const secondsUtc = (instant: string) => `${new Date(instant).toISOString().slice(0, 19)}Z`;

const query = (params: Record<string, string | undefined>) =>
  Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');

/** Google Calendar's "create event" page, filled in. */
export function googleCalendarUrl(event: CalendarLinkEvent): string {
  return `https://calendar.google.com/calendar/render?${query({
    action: 'TEMPLATE',
    text: event.title,
    dates: `${compactUtc(event.start)}/${compactUtc(event.end)}`,
    details: event.details,
    location: event.location,
  })}`;
}

/** Outlook on the web's "new event" form (outlook.live.com), filled in. */
export function outlookCalendarUrl(event: CalendarLinkEvent): string {
  return `https://outlook.live.com/calendar/0/action/compose?${query({
    rru: 'addevent',
    subject: event.title,
    startdt: secondsUtc(event.start),
    enddt: secondsUtc(event.end),
    body: event.details,
    location: event.location,
  })}`;
}
