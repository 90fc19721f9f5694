/** Zone names as the tz database spells them, by name as given; bounded, as hostile input could grow it. */
const spellings = new Map<string, string | null>();
const MAX_SPELLINGS = 2_000;

/**
 * The name a time zone is stored and answered under: as it was given, with only its letter
 * case corrected (`europe/berlin` is `Europe/Berlin`); an alias stays itself (`Asia/Kolkata`
 * is not answered as `Asia/Calcutta`, `Etc/UTC` not as `UTC`), because Intl's canonical names
 * lag behind the tz database's. Null when the platform's tz database does not know the zone.
 */
export function zoneName(given: string): string | null {
  let name = spellings.get(given);
  if (name === undefined) {
    name = spellingOf(given);
    if (spellings.size < MAX_SPELLINGS) spellings.set(given, name);
  }
  return name;
}

function spellingOf(given: string): string | null {
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: given }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  return canonical.toLowerCase() === given.toLowerCase() ? canonical : given;
}
