/**
 * The checks and the masking of a performer's payout details (bank transfer or PayPal), without zod: the API's
 * schema (common/schemas/money.ts payoutDetailsBody) calls them, and a page or island may load them too.
 *
 * What is checked is what catches a typo before money goes to a stranger's account: an IBAN's check digits
 * (ISO 13616, mod 97), a SWIFT/BIC's shape, a US routing number's check digit (ABA), and that the IBAN and the BIC
 * name the bank's country. Whether the account exists only the bank knows.
 */

/** Spaces, dashes and dots people type into account numbers, gone; letters upper case. */
export function compactAccount(value: string): string {
  return value.replace(/[\s.-]+/g, '').toUpperCase();
}

/** Looks like an IBAN: a country code, two check digits, then the national account (at least 11 characters). */
export function looksLikeIban(compact: string): boolean {
  return /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact);
}

/** The IBAN's check digits are right (mod 97 of the rearranged number is 1). */
export function ibanChecksumOk(compact: string): boolean {
  if (!looksLikeIban(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let rest = 0;
  for (const ch of rearranged) {
    const digits = /[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/** A SWIFT/BIC: 4 letters (bank), 2 letters (country), 2 letters or digits (place), optionally 3 more (branch). */
export function isBic(compact: string): boolean {
  return /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(compact);
}

/** A US ABA routing number: 9 digits whose weighted sum (3, 7, 1, …) is a multiple of 10. */
export function abaRoutingOk(compact: string): boolean {
  if (!/^\d{9}$/.test(compact)) return false;
  const d = [...compact].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}

/** A national bank code other than a BIC (a UK sort code, an Australian BSB, a Canadian transit number…): digits only. */
export function isNationalBankCode(compact: string): boolean {
  return /^\d{4,12}$/.test(compact);
}

/** A domestic account number: letters and digits, 4 to 34 of them, at least 4 digits. */
export function isAccountNumber(compact: string): boolean {
  return /^[A-Z0-9]{4,34}$/.test(compact) && (compact.match(/\d/g)?.length ?? 0) >= 4;
}

export interface BankFields {
  accountHolder: string;
  accountNumber: string;
  bankCode: string | null;
  bankCountry: string;
}

/**
 * What is wrong with bank details already compacted (field → message), empty when nothing is. An IBAN must carry
 * the bank's country and valid check digits; without an IBAN the bank needs a code to route the transfer (a BIC, or
 * a routing number or sort code); a BIC names the bank's country too.
 */
export function bankDetailsProblems(b: BankFields): Record<string, string> {
  const problems: Record<string, string> = {};
  const iban = looksLikeIban(b.accountNumber);
  if (iban) {
    if (!ibanChecksumOk(b.accountNumber)) problems.accountNumber = 'This IBAN is not valid: check it for a typo';
    else if (b.accountNumber.slice(0, 2) !== b.bankCountry) problems.accountNumber = `This IBAN is for ${b.accountNumber.slice(0, 2)}, but the bank country is ${b.bankCountry}`;
  } else if (!isAccountNumber(b.accountNumber)) {
    problems.accountNumber = 'Enter an IBAN, or an account number of 4 to 34 letters and digits';
  }
  if (b.bankCode) {
    if (isBic(b.bankCode)) {
      if (b.bankCode.slice(4, 6) !== b.bankCountry) problems.bankCode = `This SWIFT/BIC is for ${b.bankCode.slice(4, 6)}, but the bank country is ${b.bankCountry}`;
    } else if (b.bankCountry === 'US' && /^\d{9}$/.test(b.bankCode)) {
      if (!abaRoutingOk(b.bankCode)) problems.bankCode = 'This routing number is not valid: check it for a typo';
    } else if (!isNationalBankCode(b.bankCode)) {
      problems.bankCode = 'Enter a SWIFT/BIC (8 or 11 characters) or your bank’s routing number or sort code (digits)';
    }
  } else if (!iban) {
    problems.bankCode = 'Without an IBAN the bank needs a SWIFT/BIC, routing number or sort code';
  }
  return problems;
}

const MASK = '••••';

/** "DE89370400440532013000" → "•••• 3000": only the last 4 characters are shown. */
export function maskAccount(value: string): string {
  return `${MASK} ${value.slice(-4)}`;
}

/** "mona.payee@example.com" → "m••••@example.com": the first character of the name part and the domain. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return MASK;
  return `${email[0]}${MASK}${email.slice(at)}`;
}
