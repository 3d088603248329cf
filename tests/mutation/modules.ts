/**
 * The modules that guard access and money, each with the test files that must kill its mutants. `npm run
 * test:mutation` mutates one module at a time and runs only these files against each mutant (Stryker's per-test
 * coverage narrows it further), so a module's score says how well *its* tests guard it.
 */
export interface MutationModule {
  name: string;
  mutate: string[];
  tests: string[];
  /**
   * Outside services the module's rules only show against (a row lock on PostgreSQL, counters in Redis): the runner
   * gives its tests DATABASE_URL / REDIS_URL (the machine's local servers unless the environment names others).
   * Without them the API suites run on SQLite only, and a mutant of a PostgreSQL-only rule would survive unseen.
   */
  services?: Array<'postgres' | 'redis'>;
}

export const MUTATION_MODULES: MutationModule[] = [
  { name: 'api-access', mutate: ['server/http/access.ts'], tests: ['tests/unit/route-access.test.ts', 'tests/api/access-matrix.test.ts'] },
  { name: 'page-access', mutate: ['src/server/page-access.ts'], tests: ['tests/unit/page-access.test.ts'] },
  { name: 'sessions', mutate: ['server/auth/auth.service.ts'], tests: ['tests/api/accounts.test.ts', 'tests/api/account-security.test.ts', 'tests/api/realtime.test.ts', 'tests/api/session-lifetimes.test.ts', 'tests/api/account-rules.test.ts'], services: ['postgres'] },
  { name: 'session-cache', mutate: ['server/auth/session-cache.ts'], tests: ['tests/unit/session-cache.test.ts', 'tests/api/session-cache.test.ts'], services: ['postgres'] },
  { name: 'login-throttling', mutate: ['server/auth/login-failures.ts'], tests: ['tests/unit/login-failures.test.ts', 'tests/api/account-security.test.ts'], services: ['redis'] },
  {
    name: 'settlement',
    mutate: ['server/payments/settlement.service.ts', 'server/payments/renewals.ts'],
    tests: [
      'tests/api/settlement-rules.test.ts', 'tests/api/webhooks.test.ts', 'tests/api/renewals.test.ts', 'tests/api/money.test.ts', 'tests/api/concurrency.test.ts',
      'tests/api/stock-holds.test.ts', 'tests/api/checkout-rules.test.ts', 'tests/api/coupon-rules.test.ts', 'tests/api/ccbill.test.ts',
    ],
    services: ['postgres'],
  },
  { name: 'checkout', mutate: ['server/payments/checkout.service.ts', 'server/payments/pricing.ts'], tests: ['tests/api/money.test.ts', 'tests/api/stock-holds.test.ts', 'tests/api/paywall.test.ts', 'tests/api/posts.test.ts', 'tests/api/performer-approval.test.ts', 'tests/api/checkout-return.test.ts', 'tests/api/money-production.test.ts', 'tests/api/concurrency.test.ts', 'tests/unit/money.test.ts', 'tests/api/checkout-rules.test.ts', 'tests/unit/pricing.test.ts'] },
  { name: 'webhook-signatures', mutate: ['server/payments/signature.ts'], tests: ['tests/unit/webhook-signature.test.ts', 'tests/api/webhooks.test.ts'] },
  { name: 'coupons', mutate: ['server/coupons/coupons.service.ts', 'server/coupons/coupons.repository.ts'], tests: ['tests/api/money.test.ts', 'tests/api/concurrency.test.ts', 'tests/api/admin.test.ts', 'tests/api/coupon-rules.test.ts'] },
  { name: 'comments', mutate: ['server/comments/comments.service.ts', 'server/comments/discussion.ts'], tests: ['tests/api/comments.test.ts', 'tests/api/comments-access.test.ts', 'tests/api/comment-rules.test.ts'] },
  { name: 'reactions', mutate: ['server/reactions/reactions.service.ts'], tests: ['tests/api/reactions.test.ts', 'tests/api/reaction-rules.test.ts'] },
];
