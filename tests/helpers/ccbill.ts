import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/**
 * CCBill as the tests play it: an account, webhook payloads with the fields and example values CCBill's Webhooks pages
 * show for each event (the pages print their dates with typographic hyphens; real posts, and these, use ASCII), and a
 * stand-in for the DataLink subscription management script on a local port (this machine has no network).
 */

export const ACCOUNT = {
  account: '900100',
  subaccount: '0000',
  flexFormId: '687fa3e0-e60d-4466-88e2-181fa56dd6a9',
  // The salt of CCBill's own formDigest example.
  salt: '7d901dad245fd0ff6bc20d06',
  datalinkUser: 'ccbill12',
  datalinkPassword: 'test123',
};

/** An address inside CCBill's published webhook ranges, and one outside. */
export const CCBILL_IP = '64.38.212.10';
export const OUTSIDE_IP = '6.6.6.6';

export type Payload = Record<string, string>;

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

const consumer = {
  firstName: 'John', lastName: 'Doe', address1: '123 Main Street', city: 'Anytown', state: 'AZ', country: 'US', postalCode: '50115',
  email: 'user@randomurl.com', phoneNumber: '(515) 555-1212', ipAddress: '192.168.27.4', reservationId: '0109072310330002423',
  username: 'username1', password: 'mYPaSSw0rD',
};

const card = { paymentType: 'CREDIT', cardType: 'VISA', last4: '1111', expDate: '0130' };

export function newSaleSuccess(o: {
  subscriptionId?: string;
  transactionId?: string;
  paymentId?: string;
  checkoutRef?: string;
  price?: string;
  currencyCode?: string;
  /** A recurring price: its renewal price and period. */
  recurring?: { price: string; period: string };
  salt?: string;
  digest?: string;
  timestamp?: string;
} = {}): Payload {
  const subscriptionId = o.subscriptionId ?? '1000000000';
  const price = o.price ?? '10.00';
  const code = o.currencyCode ?? '840';
  return {
    subscriptionId,
    transactionId: o.transactionId ?? '0912191101000000159',
    clientAccnum: ACCOUNT.account,
    clientSubacc: ACCOUNT.subaccount,
    timestamp: o.timestamp ?? '2012-08-05 15:18:17',
    ...consumer,
    formName: '13cc',
    flexId: ACCOUNT.flexFormId,
    productDesc: 'Sample product description text.',
    priceDescription: `${price}(USD) for 30 days`,
    recurringPriceDescription: o.recurring ? `${o.recurring.price}(USD) recurring every ${o.recurring.period} days` : '',
    billedInitialPrice: price,
    billedRecurringPrice: o.recurring?.price ?? '0.00',
    billedCurrencyCode: code,
    subscriptionInitialPrice: price,
    subscriptionRecurringPrice: o.recurring?.price ?? '0.00',
    subscriptionCurrencyCode: code,
    accountingInitialPrice: price,
    accountingRecurringPrice: o.recurring?.price ?? '0.00',
    accountingCurrencyCode: '840',
    initialPeriod: o.recurring?.period ?? '365',
    recurringPeriod: o.recurring?.period ?? '0',
    rebills: o.recurring ? '99' : '0',
    nextRenewalDate: o.recurring ? '2012-09-04' : '',
    subscriptionTypeId: '0000000001',
    dynamicPricingValidationDigest: o.digest ?? md5(`${subscriptionId}1${o.salt ?? ACCOUNT.salt}`),
    ...card,
    bin: '411111',
    prePaid: '0',
    avsResponse: 'Y',
    cvv2Response: 'M',
    affiliateSystem: '',
    referringUrl: 'http://www.referringurl.com',
    lifeTimeSubscription: '0',
    lifeTimePrice: '0.00',
    ...(o.paymentId ? { 'X-paymentId': o.paymentId } : {}),
    ...(o.checkoutRef ? { 'X-checkoutRef': o.checkoutRef } : {}),
  };
}

export function newSaleFailure(o: { transactionId?: string; paymentId?: string; checkoutRef?: string } = {}): Payload {
  return {
    transactionId: o.transactionId ?? '0912191101000000160',
    clientAccnum: ACCOUNT.account,
    clientSubacc: ACCOUNT.subaccount,
    timestamp: '2012-08-05 15:18:17',
    ...consumer,
    formName: '13cc',
    flexId: ACCOUNT.flexFormId,
    priceDescription: '10.00(USD) for 30 days',
    recurringPriceDescription: '',
    billedInitialPrice: '10.00',
    billedRecurringPrice: '0.00',
    billedCurrencyCode: '840',
    subscriptionInitialPrice: '10.00',
    subscriptionRecurringPrice: '0.00',
    subscriptionCurrencyCode: '840',
    accountingInitialPrice: '10.00',
    accountingRecurringPrice: '0.00',
    accountingCurrencyCode: '840',
    initialPeriod: '30',
    recurringPeriod: '0',
    rebills: '0',
    subscriptionTypeId: '0000000001',
    paymentType: 'CREDIT',
    cardType: 'VISA',
    failureReason: 'Transaction Denied by Bank',
    failureCode: 'BE-140',
    ...(o.paymentId ? { 'X-paymentId': o.paymentId } : {}),
    ...(o.checkoutRef ? { 'X-checkoutRef': o.checkoutRef } : {}),
  };
}

export function renewalSuccess(o: { subscriptionId?: string; transactionId?: string; amount?: string; timestamp?: string } = {}): Payload {
  return {
    transactionId: o.transactionId ?? '0912191101000000161',
    subscriptionId: o.subscriptionId ?? '1000000000',
    clientAccnum: ACCOUNT.account,
    clientSubacc: ACCOUNT.subaccount,
    timestamp: o.timestamp ?? '2012-09-04 15:18:17',
    billedAmount: o.amount ?? '10.00',
    billedCurrency: 'USD',
    billedCurrencyCode: '840',
    accountingAmount: o.amount ?? '10.00',
    accountingCurrency: 'USD',
    accountingCurrencyCode: '840',
    nextRenewalDate: '2012-10-04',
    renewalDate: '2012-09-04',
    ...card,
    paymentAccount: 'bf8f7b2a8c6c5e4d3c2b1a0f9e8d7c6b',
  };
}

export function renewalFailure(o: { subscriptionId?: string; transactionId?: string } = {}): Payload {
  return {
    transactionId: o.transactionId ?? '0912191101000000162',
    subscriptionId: o.subscriptionId ?? '1000000000',
    clientAccnum: ACCOUNT.account,
    clientSubacc: ACCOUNT.subaccount,
    timestamp: '2012-09-04 15:18:17',
    failureReason: 'Transaction Denied by Bank',
    failureCode: 'BE-140',
    nextRetryDate: '2012-09-07',
    renewalDate: '2012-09-04',
    cardType: 'VISA',
    paymentType: 'CREDIT',
  };
}

export function cancellation(o: { subscriptionId?: string } = {}): Payload {
  return {
    subscriptionId: o.subscriptionId ?? '1000000000',
    clientAccnum: ACCOUNT.account,
    clientSubacc: ACCOUNT.subaccount,
    timestamp: '2012-08-20 09:00:00',
    reason: 'Customer Cancellation',
    source: 'webAdmin',
  };
}

export function expiration(o: { subscriptionId?: string } = {}): Payload {
  return { subscriptionId: o.subscriptionId ?? '1000000000', clientAccnum: ACCOUNT.account, clientSubacc: ACCOUNT.subaccount, timestamp: '2012-09-04 00:00:00' };
}

/**
 * Refund, Chargeback and Void carry the same fields: the transaction reversed, its subscription, the amount of that
 * reversal and its currency (numeric `currencyCode`, letters `currency`), the same in CCBill's accounting currency, a
 * reason (https://ccbill.com/doc/chargeback, the Void page https://ccbill.com/doc/?p=10454; later versions add the
 * card fields below).
 */
export function reversal(o: { transactionId?: string; subscriptionId?: string; amount?: string; reason?: string; timestamp?: string } = {}): Payload {
  return {
    transactionId: o.transactionId ?? '0912191101000000159',
    subscriptionId: o.subscriptionId ?? '1000000000',
    clientAccnum: ACCOUNT.account,
    clientSubacc: ACCOUNT.subaccount,
    timestamp: o.timestamp ?? '2012-08-10 12:00:00',
    amount: o.amount ?? '10.00',
    currency: 'USD',
    currencyCode: '840',
    accountingAmount: o.amount ?? '10.00',
    accountingCurrency: 'USD',
    accountingCurrencyCode: '840',
    reason: o.reason ?? 'Customer Refunded',
    ...card,
    paymentAccount: 'bf8f7b2a8c6c5e4d3c2b1a0f9e8d7c6b',
  };
}

/** The two body formats a merchant can choose in CCBill's admin. */
export const asForm = (p: Payload) => new URLSearchParams(p).toString();
export const asJson = (p: Payload) => JSON.stringify(p);

export interface DatalinkStandIn {
  url: string;
  /** Every request's query parameters, in order. */
  calls: Array<Record<string, string>>;
  /** What the next requests get, per action; default `<results>1</results>`. */
  answers: Record<string, { status?: number; body: string }>;
  close(): Promise<void>;
}

/** The DataLink subscription management script, standing in on a local port. */
export async function startDatalinkStandIn(): Promise<DatalinkStandIn> {
  const calls: Array<Record<string, string>> = [];
  const answers: DatalinkStandIn['answers'] = {};
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const params = Object.fromEntries(url.searchParams);
    calls.push(params);
    const answer = answers[params.action ?? ''] ?? { body: "<?xml version='1.0' standalone='yes'?>\n<results>1</results>" };
    res.writeHead(answer.status ?? 200, { 'content-type': 'text/xml' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/utils/subscriptionManagement.cgi`,
    calls,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
