// The order `npm test` starts files in: the slowest first, so that the last files to finish
// are short ones and both cores stay busy to the end, then the rest by path. Measured with
// scripts/test-times-reporter.mjs (docs/performance.md, "Test suite"); a file missing here
// only starts later, and a name of a file that is gone is skipped.
const SLOWEST = [
  'test/process.test.ts',
  'test/modules/mail/mail.test.ts',
  'test/modules/webhooks/webhooks-instances.test.ts',
  'test/modules/availability/availability-engine-zones.test.ts',
  'test/modules/availability/availability-equivalence.test.ts',
  'test/modules/waitlist/waitlist-instances.test.ts',
  'test/modules/resources/manager-settings.test.ts',
  'test/modules/user-groups/user-groups.test.ts',
  'test/modules/availability/availability-cache.test.ts',
  'test/modules/public-booking/manage-links.test.ts',
  'test/modules/organisations/organisations.test.ts',
  'test/modules/organisations/organisation-members.test.ts',
  'test/modules/payments/payments.test.ts',
  'test/modules/organisations/organisation-invitations.test.ts',
  'test/modules/webhooks/webhooks-fairness.test.ts',
  'test/tools/emulators/emulators-calendar.test.ts',
  'test/modules/privacy/privacy-cli.test.ts',
  'test/modules/privacy/privacy.test.ts',
  'test/modules/reservations/series.test.ts',
  'test/modules/calendar-sync/calendar-sync.test.ts',
  'test/modules/feeds/feeds-membership.test.ts',
  'test/modules/availability/explain-equivalence.test.ts',
  'test/modules/oauth/oauth.test.ts',
  'test/modules/provider-timeouts.test.ts',
  'test/modules/resources/resource-list-cache.test.ts',
  'test/modules/tasks/tasks.test.ts',
  'test/modules/platform/platform.test.ts',
  'test/db/db-outage.test.ts',
];

/** `files` (paths under test/, as found) with the known slowest first, in SLOWEST's order. */
export function slowestFirst(files) {
  const normal = (file) => file.replaceAll('\\', '/');
  const rank = new Map(SLOWEST.map((file, index) => [file, index]));
  const first = files.filter((file) => rank.has(normal(file)));
  first.sort((a, b) => rank.get(normal(a)) - rank.get(normal(b)));
  return [...first, ...files.filter((file) => !rank.has(normal(file)))];
}
