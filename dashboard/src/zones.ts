/**
 * IANA time zones for the picker. Browsers list zones by their CLDR ids, some of which are the
 * old IANA names (Chromium 156 gives `Asia/Katmandu`, `Asia/Calcutta`, `Europe/Kiev`); the picker
 * shows the current IANA names, which the API and PostgreSQL accept (as they do the old ones).
 * Source of the renames: the IANA tz database's `backward` file.
 */
const CURRENT_NAMES: Record<string, string> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Coral_Harbour': 'America/Atikokan',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

/** The current IANA name of `zone` (unchanged when it is current or the runtime rejects the new name). */
export function currentZoneName(zone: string): string {
  const current = CURRENT_NAMES[zone];
  if (!current) return zone;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: current });
    return current;
  } catch {
    return zone;
  }
}

/** The browser's own zone, the picker's default. */
export const browserTimeZone = () => currentZoneName(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');

/** Every zone the browser knows, by current name, sorted, with UTC and the browser's own zone. */
export function knownTimeZones(): string[] {
  const zones = new Set(['UTC', browserTimeZone(), ...Intl.supportedValuesOf('timeZone').map(currentZoneName)]);
  return [...zones].sort();
}
