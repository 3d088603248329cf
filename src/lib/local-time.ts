/**
 * A moment as people read it: "3 Mar 2025, 14:05". The server writes it in UTC (it does not know the reader's time
 * zone) and says so; in the browser the LocalTimes island rewrites it in the reader's own zone and language.
 */
const OPTIONS: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' };

export function readableTime(iso: string, where: { locale?: string; timeZone?: string } = {}): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(where.locale, { ...OPTIONS, ...(where.timeZone ? { timeZone: where.timeZone } : {}) }).format(d);
}

/** The server's text: UTC, labelled, in one fixed language so pages do not depend on the server's locale. */
export const utcTime = (iso: string) => `${readableTime(iso, { locale: 'en-GB', timeZone: 'UTC' })} UTC`;

/**
 * Where an island prints a moment: until it has mounted, what the server printed (UTC in one fixed language, or
 * hydration would not match for a reader elsewhere); then the reader's own zone and language.
 */
export const islandZone = (mounted: boolean): { locale?: string; timeZone?: string } => (mounted ? {} : { locale: 'en-GB', timeZone: 'UTC' });
