import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { moneyInput } from '../../common/money.js';
import { ipv4InRanges, parseIpv4Ranges, type Ipv4Range } from '../../common/ip-ranges.js';
import {
  GatewayError, type CheckoutRequest, type CheckoutSession, type GatewayAction, type GatewayEvent, type GatewayStatus, type PaymentGateway,
  type WebhookRequest,
} from './gateway.js';
import { WebhookSignatureError } from './signature.js';

/**
 * CCBill behind the gateway interface.
 *
 * Checkout is a FlexForms "dynamic pricing" link: `<flexforms base>/<Flex ID>?clientAccnum&clientSubacc&initialPrice
 * &initialPeriod[&recurringPrice&recurringPeriod&numRebills]&currencyCode&formDigest` plus our pass-through fields
 * `X-paymentId` and `X-checkoutRef`. `formDigest` is the MD5 hex of the values concatenated with the salt CCBill's
 * merchant support issues: initialPrice, initialPeriod, currencyCode, salt for a one-time price; initialPrice,
 * initialPeriod, recurringPrice, recurringPeriod, numRebills, currencyCode, salt for a recurring one. Prices are
 * decimal text with two decimals ("9.99"), currencies the ISO 4217 numeric codes CCBill lists (840 USD, 978 EUR,
 * 826 GBP, 124 CAD, 036 AUD, 392 JPY). The link has no server-side session at CCBill, so there is nothing to expire.
 *
 * Results arrive as CCBill Webhooks (the merchant picks JSON or URL-encoded bodies; both are read). The event type
 * is not in the body but in the query string (`?eventType=NewSaleSuccess`), which the route hands over. Webhooks are
 * not signed, so an event is believed when:
 *   - it comes from CCBill's published webhook addresses (64.38.212.1–254, 64.38.215.1–254, 64.38.240.1–254,
 *     64.38.241.1–254; setting `ccbillWebhookIps` overrides), judged on the client address Fastify's trusted-proxy
 *     handling gives (TRUST_PROXY), never on a header anyone can write;
 *   - its `clientAccnum`, when present, is our account;
 *   - for NewSaleSuccess, `dynamicPricingValidationDigest` = MD5(subscriptionId + "1" + salt): only CCBill and we
 *     know the salt, so only a sale CCBill approved at a price we signed carries it.
 * Anything else is a WebhookSignatureError (400, nothing written).
 *
 * Fields relied on (CCBill's per-event pages under https://ccbill.com/doc/; read for NewSaleSuccess, Chargeback and
 * Void, the others only through open-source parsers: the README's CCBill section says which is which). Every value is
 * read as text, see `readBody`:
 *   all events          eventType (query string), clientAccnum, timestamp ("Time the event occurred", shown as
 *                       "2012-08-05 15:18:17": no zone, see CCBILL_TIMESTAMP_OFFSET)
 *   NewSaleSuccess      subscriptionId, transactionId, billedInitialPrice, billedCurrencyCode (fallback
 *                       subscriptionInitialPrice / subscriptionCurrencyCode), recurringPeriod, billedRecurringPrice,
 *                       dynamicPricingValidationDigest, and our pass-through X-paymentId, X-checkoutRef
 *   NewSaleFailure      transactionId, X-paymentId, X-checkoutRef
 *   RenewalSuccess      subscriptionId, transactionId, billedAmount, billedCurrencyCode
 *   RenewalFailure      subscriptionId, transactionId
 *   Cancellation        subscriptionId            Expiration   subscriptionId
 *   Refund, Chargeback, Void   transactionId, subscriptionId, amount, currencyCode (numeric; `currency` is the
 *                       same in letters, accountingAmount/accountingCurrencyCode the same in CCBill's accounting
 *                       currency). `amount` is the amount of that one reversal ("The amount charged back", "The
 *                       amount of the voided transaction"; Refund carries the same fields and no running total), so
 *                       a Refund's is given as `refundAmount` (that refund alone: its event id is one per refund),
 *                       never as a running `refundedAmount`.
 *
 * What each means for us (everything else, e.g. UpSaleSuccess, BillingDateChange, CustomerDataUpdate, is recorded and
 * ignored):
 *   NewSaleSuccess  → paid                (subscriptionRef when the price recurs)
 *   NewSaleFailure  → failed
 *   RenewalSuccess  → renewed             (gatewayRef = intentRef = the renewal's transactionId)
 *   RenewalFailure  → renewal_failed
 *   Cancellation    → subscription_ended  (no further rebills; the paid period runs out)
 *   Expiration      → subscription_ended
 *   Refund, Void    → refunded            (a void is a refund before the money settled)
 *   Chargeback      → chargeback
 *
 * Subscription management (cancelling the recurring billing) is CCBill's DataLink "Subscription Management" script:
 * GET `<datalink>?clientAccnum&clientSubacc&usingSubacc&username&password&action=cancelSubscription&subscriptionId
 * &returnXML=1`, answering `<results>1</results>` on success, 0 or a negative error code otherwise.
 */

export const CCBILL_FLEXFORMS_URL = 'https://api.ccbill.com/wap-frontflex/flexforms';
export const CCBILL_DATALINK_URL = 'https://datalink.ccbill.com/utils/subscriptionManagement.cgi';
/** The addresses CCBill's Webhooks user guide says its posts come from. */
export const CCBILL_WEBHOOK_RANGES = '64.38.212.1 - 64.38.212.254, 64.38.215.1 - 64.38.215.254, 64.38.240.1 - 64.38.240.254, 64.38.241.1 - 64.38.241.254';
/** The currencies CCBill's dynamic pricing pages list, ISO letters → the numeric code `currencyCode` takes. */
export const CCBILL_CURRENCY_CODES: Readonly<Record<string, string>> = { USD: '840', EUR: '978', GBP: '826', CAD: '124', AUD: '036', JPY: '392' };
const CURRENCY_LETTERS = new Map(Object.entries(CCBILL_CURRENCY_CODES).map(([letters, code]) => [code, letters]));

/** Our pass-through fields on the FlexForms link, which CCBill echoes in the sale's webhook. */
export const PAYMENT_ID_FIELD = 'X-paymentId';
export const CHECKOUT_REF_FIELD = 'X-checkoutRef';
/**
 * numRebills 99: "rebill until cancelled". Not confirmed: the copies of CCBill's dynamic pricing pages we could read
 * stop before the numRebills row (see the README's CCBill section); ask CCBill's merchant support before going live.
 */
export const UNLIMITED_REBILLS = '99';
/**
 * CCBill wants a period on every price, also a one-time one (2 to 365 days). Our purchases do not expire and CCBill
 * grants nothing of its own (we do not use its user management), so the longest period reads least wrong on its form.
 */
export const ONE_TIME_PERIOD_DAYS = 365;
/**
 * CCBill's event pages describe `timestamp` only as "Time the event occurred" with a zone-less example, and no page
 * we could read names its zone. CCBill runs from Phoenix, whose clock is UTC−7 all year; that is what we assume, as
 * an option (`timestampOffset`), until CCBill confirms it. The offset only dates renewals and failures (`occurredAt`);
 * the event id takes the timestamp's text as it came.
 */
export const CCBILL_TIMESTAMP_OFFSET = '-07:00';

export interface CcbillGatewayOptions {
  /** clientAccnum: the 6-digit main account. */
  account: string;
  /** clientSubacc: the 4-digit subaccount the FlexForm charges on. */
  subaccount: string;
  /** The FlexForms payment flow's Flex ID. */
  flexFormId: string;
  /** The dynamic pricing salt (encryption key) from CCBill's merchant support. */
  salt: string;
  /** A DataLink user allowed the subscription management actions. */
  datalinkUser: string;
  datalinkPassword: string;
  /** Where webhooks may come from (common/ip-ranges.ts syntax); empty = CCBill's published ranges. */
  webhookSources?: string;
  flexFormsUrl?: string;
  datalinkUrl?: string;
  timestampOffset?: string;
  /** Injected for tests; the global fetch otherwise. */
  fetch?: typeof fetch;
  timeoutMs?: number;
}

type Fields = ReadonlyMap<string, string>;

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** The formDigest of a dynamic price: MD5 hex of the values in CCBill's order, then the salt. */
export function formDigest(
  p: { initialPrice: string; initialPeriod: string; currencyCode: string; recurringPrice?: string; recurringPeriod?: string; numRebills?: string },
  salt: string,
): string {
  const recurring = p.recurringPrice !== undefined ? `${p.recurringPrice}${p.recurringPeriod ?? ''}${p.numRebills ?? ''}` : '';
  return md5(`${p.initialPrice}${p.initialPeriod}${recurring}${p.currencyCode}${salt}`);
}

/** What an approved dynamic-pricing sale carries: MD5(subscriptionId + "1" + salt). */
export function saleDigest(subscriptionId: string, salt: string): string {
  return md5(`${subscriptionId}1${salt}`);
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a.toLowerCase(), 'utf8');
  const y = Buffer.from(b.toLowerCase(), 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** "9.99" / "10" / "4.9" → minor units; null for anything else (never through a float). */
export function decimalToMinor(text: string | undefined): number | null {
  const m = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec((text ?? '').trim());
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : null;
}

/** "840" → "USD"; a code outside CCBill's list is kept as it came, so it never equals the currency we asked for. */
export function currencyOf(code: string | undefined): string | null {
  const c = (code ?? '').trim();
  if (!c) return null;
  return CURRENCY_LETTERS.get(c.padStart(3, '0')) ?? c;
}

/**
 * JSON with every bare number kept as its literal text. A URL-encoded body carries only text, and a JSON one is read
 * the same way, so a 19-digit id is never rounded through a double and an amount never becomes 4.9500000001.
 */
function numbersAsText(json: string): string {
  let out = '';
  let i = 0;
  while (i < json.length) {
    const c = json[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      out += json.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i + 1;
      while (j < json.length && /[0-9eE.+-]/.test(json[j]!)) j++;
      out += JSON.stringify(json.slice(i, j));
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * The fields of a CCBill event we keep (webhook_events.payload): what the settlement reads, nothing of the buyer.
 * CCBill's bodies also carry the buyer's name, email, address, IP, card BIN and last digits and the username and
 * password chosen on the form, none of which this site needs or may keep.
 */
const KEPT_FIELDS = [
  'amount', 'billedAmount', 'billedCurrencyCode', 'billedInitialPrice', 'billedRecurringPrice', 'clientAccnum', 'clientSubacc', 'currencyCode',
  'recurringPeriod', 'subscriptionCurrencyCode', 'subscriptionId', 'subscriptionInitialPrice', 'timestamp', 'transactionId', 'reason',
];

export function keptFields(eventType: string, f: Fields): string {
  const kept: Record<string, string> = { eventType };
  for (const name of KEPT_FIELDS) {
    const v = f.get(name);
    if (v !== undefined) kept[name] = v;
  }
  for (const name of [PAYMENT_ID_FIELD, CHECKOUT_REF_FIELD]) {
    const v = passThrough(f, name);
    if (v) kept[name] = v;
  }
  return JSON.stringify(kept);
}

/** The webhook body as name → text, whichever format the merchant chose in CCBill's admin. */
export function readBody(raw: Buffer | string): Fields {
  const text = (typeof raw === 'string' ? raw : raw.toString('utf8')).trim();
  const fields = new Map<string, string>();
  if (text.startsWith('{') || text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(numbersAsText(text));
    } catch {
      throw new WebhookSignatureError('Malformed CCBill webhook body (not JSON)');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new WebhookSignatureError('Malformed CCBill webhook body');
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof v === 'string') fields.set(k, v);
      else if (typeof v === 'boolean') fields.set(k, String(v));
    }
    return fields;
  }
  for (const [k, v] of new URLSearchParams(text)) if (!fields.has(k)) fields.set(k, v);
  if (fields.size === 0) throw new WebhookSignatureError('Malformed CCBill webhook body');
  return fields;
}

const field = (f: Fields, name: string): string | null => {
  const v = f.get(name)?.trim();
  return v ? v : null;
};

/** A pass-through field, whatever case CCBill echoes its name in. */
const passThrough = (f: Fields, name: string): string | null => {
  const want = name.toLowerCase();
  for (const [k, v] of f) if (k.toLowerCase() === want && v.trim()) return v.trim();
  return null;
};

/** "2012-08-05 15:18:17" at `offset` → ISO; null when absent or unreadable (the event is then dated on receipt). */
export function timestampToIso(text: string | null, offset = CCBILL_TIMESTAMP_OFFSET): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})$/.exec(text ?? '');
  if (!m) return null;
  const t = Date.parse(`${m[1]}T${m[2]}${offset}`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

const MAPPED: Readonly<Record<string, GatewayAction>> = {
  NewSaleSuccess: 'paid',
  NewSaleFailure: 'failed',
  RenewalSuccess: 'renewed',
  RenewalFailure: 'renewal_failed',
  Cancellation: 'subscription_ended',
  Expiration: 'subscription_ended',
  Refund: 'refunded',
  Void: 'refunded',
  Chargeback: 'chargeback',
};

/** Which id names the event, per type (the one it cannot be read without). */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  NewSaleSuccess: ['subscriptionId', 'transactionId'],
  NewSaleFailure: ['transactionId'],
  RenewalSuccess: ['subscriptionId', 'transactionId'],
  RenewalFailure: ['subscriptionId', 'transactionId'],
  Cancellation: ['subscriptionId'],
  Expiration: ['subscriptionId'],
  Refund: ['transactionId'],
  Void: ['transactionId'],
  Chargeback: ['transactionId'],
};

/**
 * A verified CCBill event → our normalised event (exported for unit tests; `parseWebhook` verifies first).
 *
 * The event id: CCBill sends none, and redelivers an event it could not deliver with the same body. eventType +
 * the transaction it is about (else the subscription) + CCBill's timestamp is the same for every delivery of one
 * event and different for two events (two kinds of event on one transaction differ by type, two of a kind on one
 * subscription by time), so it is the idempotency key.
 */
export function mapCcbillEvent(eventType: string, f: Fields, opts: { timestampOffset?: string; rawBody?: Buffer | string } = {}): GatewayEvent {
  const transactionId = field(f, 'transactionId');
  const subscriptionId = field(f, 'subscriptionId');
  const timestamp = field(f, 'timestamp');
  const action = MAPPED[eventType] ?? null;
  for (const name of REQUIRED[eventType] ?? []) {
    if (!field(f, name)) throw new WebhookSignatureError(`Malformed CCBill ${eventType}: no ${name}`);
  }
  const ref = transactionId ?? subscriptionId;
  // An event we do not act on and that names nothing still needs a stable key: its body's hash.
  const key = ref ?? createHash('sha256').update(opts.rawBody ?? [...f].join('&')).digest('hex').slice(0, 32);
  const base: GatewayEvent = {
    id: `${eventType}:${key}:${timestamp ?? ''}`,
    type: eventType,
    action,
    occurredAt: timestampToIso(timestamp, opts.timestampOffset),
  };
  switch (eventType) {
    case 'NewSaleSuccess': {
      const amount = decimalToMinor(field(f, 'billedInitialPrice') ?? field(f, 'subscriptionInitialPrice') ?? undefined);
      const currency = currencyOf(field(f, 'billedCurrencyCode') ?? field(f, 'subscriptionCurrencyCode') ?? undefined);
      // The settlement compares what was paid with the payment; a sale whose price we cannot read is not believed.
      if (amount === null || !currency) throw new WebhookSignatureError('Malformed CCBill NewSaleSuccess: no readable billed price and currency');
      const recurs = Number(field(f, 'recurringPeriod') ?? 0) > 0 || (decimalToMinor(field(f, 'billedRecurringPrice') ?? undefined) ?? 0) > 0;
      return {
        ...base,
        paymentId: passThrough(f, PAYMENT_ID_FIELD),
        gatewayRef: passThrough(f, CHECKOUT_REF_FIELD),
        intentRef: transactionId,
        subscriptionRef: recurs ? subscriptionId : null,
        amount,
        currency,
      };
    }
    case 'NewSaleFailure':
      return { ...base, paymentId: passThrough(f, PAYMENT_ID_FIELD), gatewayRef: passThrough(f, CHECKOUT_REF_FIELD) };
    case 'RenewalSuccess':
      return {
        ...base,
        subscriptionRef: subscriptionId,
        // The renewal is a charge of its own: its id is the new payment's ref, and what a later Refund names.
        gatewayRef: transactionId,
        intentRef: transactionId,
        amount: decimalToMinor(field(f, 'billedAmount') ?? undefined),
        currency: currencyOf(field(f, 'billedCurrencyCode') ?? undefined),
      };
    case 'RenewalFailure':
    case 'Cancellation':
    case 'Expiration':
      return { ...base, subscriptionRef: subscriptionId };
    case 'Refund':
    case 'Void':
    case 'Chargeback': {
      const amount = decimalToMinor(field(f, 'amount') ?? undefined);
      return {
        ...base,
        intentRef: transactionId,
        subscriptionRef: subscriptionId,
        amount,
        currency: currencyOf(field(f, 'currencyCode') ?? undefined),
        // A Refund may be of part of the charge (CCBill's admin allows it) and says that refund's amount alone; its id
        // (type, transaction, timestamp) is one per refund, so settlement can add it up. A Void undoes the whole sale.
        ...(eventType === 'Refund' && amount !== null && amount > 0 ? { refundAmount: amount } : {}),
      };
    }
    default:
      return base;
  }
}

/** The meaning of DataLink's result codes, as CCBill's API guide lists them. */
export const DATALINK_RESULTS: Readonly<Record<string, string>> = {
  '1': 'done',
  '0': 'the requested action failed',
  '-1': 'the DataLink user or password was refused',
  '-2': 'the subscription id is invalid or not supported by the action',
  '-3': 'no record was found for the subscription',
  '-4': 'the subscription is not on this account',
  '-5': 'the arguments of the action were invalid or missing',
  '-6': 'the action is invalid',
  '-7': 'an internal error at CCBill',
  '-8': "this server's address is not allowed for the DataLink user",
  '-9': 'the account may not use DataLink or this action',
  '-10': 'the account is not set up for DataLink',
  '-12': 'too many failed DataLink logins in the last hour',
};

/** DataLink answers XML (`<results>1</results>`, or one element per field) or, without returnXML, CSV (a header row, a value row). */
export function readDatalinkAnswer(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  const tags = [...body.matchAll(/<([A-Za-z][\w]*)>([^<]*)<\/\1>/g)];
  if (tags.length) {
    for (const [, name, value] of tags) out[name!] = value!.trim();
    return out;
  }
  const rows = body.trim().split(/\r?\n/).map((line) => line.split(',').map((cell) => cell.trim().replace(/^"|"$/g, '')));
  if (rows.length >= 2) rows[0]!.forEach((name, i) => (out[name] = rows[1]![i] ?? ''));
  return out;
}

export class CcbillGateway implements PaymentGateway {
  readonly name = 'ccbill' as const;
  private readonly ranges: Ipv4Range[];
  private readonly fetcher: typeof fetch;

  constructor(private readonly opts: CcbillGatewayOptions) {
    const listed = parseIpv4Ranges(opts.webhookSources?.trim() || CCBILL_WEBHOOK_RANGES);
    // The admin schema refuses an unreadable list; one that got stored anyway allows nothing rather than anything.
    this.ranges = listed.ok ? listed.ranges : [];
    this.fetcher = opts.fetch ?? fetch;
  }

  async createCheckout(req: CheckoutRequest): Promise<CheckoutSession> {
    const { account, subaccount, flexFormId, salt } = this.opts;
    if (!account || !subaccount || !flexFormId || !salt) {
      throw new GatewayError('ccbill', 'CCBill is not configured (ccbillAccount, ccbillSubaccount, ccbillFlexFormId, ccbillSalt)');
    }
    const currencyCode = CCBILL_CURRENCY_CODES[req.currency.toUpperCase()];
    if (!currencyCode) throw new GatewayError('ccbill', `CCBill dynamic pricing takes ${Object.keys(CCBILL_CURRENCY_CODES).join(', ')}, not ${req.currency}`);
    // A free trial is CCBill's free initial period (initialPrice 0.00 for initialPeriod days, then the recurring
    // price); CCBill must have free trials enabled on the subaccount. Nothing else may cost 0: a one-time sale of 0
    // is refused here rather than sent as a form CCBill would reject after the buyer typed their card.
    if (req.amount < 1 && req.recurring?.firstPeriodDays === undefined) throw new GatewayError('ccbill', 'CCBill cannot sell anything for 0 but a free trial');
    const price = {
      initialPrice: moneyInput(req.amount),
      initialPeriod: String(req.recurring ? (req.recurring.firstPeriodDays ?? req.recurring.periodDays) : ONE_TIME_PERIOD_DAYS),
      ...(req.recurring
        ? { recurringPrice: moneyInput(req.recurring.renewalAmount), recurringPeriod: String(req.recurring.periodDays), numRebills: UNLIMITED_REBILLS }
        : {}),
      currencyCode,
    };
    // Ours, not CCBill's (the link has no session there): echoed back as X-checkoutRef, unique per payment.
    const gatewayRef = `ccb_${randomBytes(12).toString('hex')}`;
    const params = new URLSearchParams({
      clientAccnum: account,
      clientSubacc: subaccount,
      ...price,
      formDigest: formDigest(price, salt),
      [PAYMENT_ID_FIELD]: req.paymentId,
      [CHECKOUT_REF_FIELD]: gatewayRef,
    });
    const base = (this.opts.flexFormsUrl ?? CCBILL_FLEXFORMS_URL).replace(/\/+$/, '');
    return { gatewayRef, redirectUrl: `${base}/${encodeURIComponent(flexFormId)}?${params}` };
  }

  async parseWebhook(rawBody: Buffer, _headers: IncomingHttpHeaders, request?: WebhookRequest): Promise<GatewayEvent> {
    if (!request) throw new WebhookSignatureError('A CCBill webhook is checked by its sender address, which was not given');
    if (!ipv4InRanges(request.clientIp, this.ranges)) throw new WebhookSignatureError(`Not from a CCBill webhook address (${request.clientIp})`);
    const eventType = request.query.eventType?.trim();
    if (!eventType || !/^[A-Za-z]{1,64}$/.test(eventType)) throw new WebhookSignatureError('Missing or malformed eventType');
    const f = readBody(rawBody);
    const account = field(f, 'clientAccnum');
    if (account && this.opts.account && account !== this.opts.account) throw new WebhookSignatureError('The event is for another CCBill account');
    if (eventType === 'NewSaleSuccess') {
      if (!this.opts.salt) throw new WebhookSignatureError('The CCBill salt is not configured');
      const subscriptionId = field(f, 'subscriptionId');
      const digest = field(f, 'dynamicPricingValidationDigest');
      if (!subscriptionId || !digest || !sameHex(digest, saleDigest(subscriptionId, this.opts.salt))) {
        throw new WebhookSignatureError('dynamicPricingValidationDigest does not match');
      }
    }
    const event = mapCcbillEvent(eventType, f, { timestampOffset: this.opts.timestampOffset, rawBody });
    return { ...event, storedPayload: keptFields(eventType, f) };
  }

  /**
   * Reconciliation re-reads a checkout, but a FlexForms link has no record at CCBill until it is paid, and a sale is
   * found at CCBill by its subscription id, which only its webhook tells us. So a pending CCBill payment stays
   * pending here; the NewSaleSuccess webhook (CCBill redelivers) settles it.
   */
  async retrieve(_gatewayRef: string): Promise<GatewayStatus> {
    return { state: 'pending' };
  }

  /** Nothing to close: the FlexForms link is a signed price, not a session at CCBill (see retrieve). */
  async expireCheckout(_gatewayRef: string): Promise<void> {}

  /**
   * CCBill's pages we rely on document no refund action for the DataLink script, so a refund is made in CCBill's
   * admin (the subscription's page in the Lookup report); its Refund webhook then settles the payment here.
   */
  async refund(_payment: { gatewayRef: string | null; intentRef: string | null; amount: number }): Promise<void> {
    throw new GatewayError('ccbill', "refund it in CCBill's admin (Lookup report, the subscription's page); its Refund webhook settles the payment here");
  }

  async cancelSubscription(subscriptionRef: string): Promise<void> {
    const result = (await this.datalink('cancelSubscription', subscriptionRef)).results ?? '';
    if (result === '1') return;
    // Already cancelled or expired at CCBill is not an error: CCBill then answers "failed", so ask what the
    // subscription is now; a cancel date or a non-recurring subscription means nothing is left to stop.
    if (result === '0') {
      const status = await this.datalink('viewSubscriptionStatus', subscriptionRef);
      if (status.cancelDate || status.recurringSubscription === '0') return;
    }
    throw new GatewayError('ccbill', `CCBill did not cancel subscription ${subscriptionRef}: ${DATALINK_RESULTS[result] ?? `result ${result || 'missing'}`}`);
  }

  /** One call of the DataLink subscription management script; its answer's fields. Never logs the URL (it has the password). */
  private async datalink(action: 'cancelSubscription' | 'viewSubscriptionStatus', subscriptionId: string): Promise<Record<string, string>> {
    const { account, subaccount, datalinkUser, datalinkPassword } = this.opts;
    if (!account || !datalinkUser || !datalinkPassword) {
      throw new GatewayError('ccbill', 'CCBill DataLink is not configured (ccbillAccount, ccbillDatalinkUser, ccbillDatalinkPassword)');
    }
    const params = new URLSearchParams({
      clientAccnum: account,
      clientSubacc: subaccount,
      usingSubacc: subaccount,
      username: datalinkUser,
      password: datalinkPassword,
      action,
      subscriptionId,
      returnXML: '1',
    });
    let body: string;
    try {
      const res = await this.fetcher(`${this.opts.datalinkUrl ?? CCBILL_DATALINK_URL}?${params}`, { signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000) });
      body = await res.text();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
    } catch (err) {
      throw new GatewayError('ccbill', `CCBill DataLink could not be reached (${action}): ${(err as Error).message}`);
    }
    return readDatalinkAnswer(body);
  }
}
