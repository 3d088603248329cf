/** Limits of the verification form, for the server's checks and the studio's form alike (no zod here). */
export const VERIFICATION_MIN_AGE = 18;
export const VERIFICATION_LEGAL_NAME_MAX = 200;
export const VERIFICATION_REASON_MAX = 1000;
/** Each picture; phones take large photos, but a readable document needs no more. */
export const VERIFICATION_IMAGE_MAX_BYTES = 15 * 1024 * 1024;
export const VERIFICATION_IMAGE_TYPES = 'image/jpeg,image/png,image/webp';

/** The three pictures of a submission, by form field. */
export const VERIFICATION_IMAGES = [
  { field: 'documentFront', label: 'Identity document, front' },
  { field: 'documentBack', label: 'Identity document, back' },
  { field: 'selfie', label: 'A selfie holding the document' },
] as const;
export type VerificationImageField = (typeof VERIFICATION_IMAGES)[number]['field'];

/**
 * Whole years between a date of birth (YYYY-MM-DD) and a day (YYYY-MM-DD), by the calendar: the birthday counts on
 * its day; someone born on 29 February turns a year older on 1 March in other years. Null for an impossible date.
 */
export function ageOn(dateOfBirth: string, day: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dateOfBirth);
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m || !d) return null;
  const [y, mo, da] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(y, mo - 1, da));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== da) return null;
  const [ty, tm, td] = [Number(d[1]), Number(d[2]), Number(d[3])];
  let age = ty - y;
  if (tm < mo || (tm === mo && td < da)) age -= 1;
  return age;
}
