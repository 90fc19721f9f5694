import type { PublicOrganisation } from '../api/types.js';

/** The organisation's `defaultLocale` (DECISIONS.md "Booking everywhere"); null where it names none. */
export function organisationLocale(organisation: PublicOrganisation): string | null {
  return (organisation as PublicOrganisation & { defaultLocale?: string | null }).defaultLocale ?? null;
}
