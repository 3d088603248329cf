/**
 * Reports (docs/product.md, Reports): what may be reported, for which reasons, and when a report is overdue. No zod
 * here, so the report dialog (a browser island) loads the reasons and their words without the schemas; the zod enums
 * of common/enums.ts are made from these lists, so each is declared once.
 */

/**
 * What a signed-in user may report. A gallery's photos are reported through their gallery (a photo has no page of
 * its own); a direct message by the participant who received it. A new kind is added here and in the resolver table
 * of server/reports/targets.ts.
 */
export const REPORT_TARGET_TYPES = ['performer', 'video', 'gallery', 'product', 'post', 'comment', 'message'] as const;

/** Why: a fixed list; `other` asks for the text. */
export const REPORT_REASONS = ['illegal', 'underage', 'non_consensual', 'copyright', 'spam', 'harassment', 'other'] as const;

export const REPORT_REASON_LABELS: Readonly<Record<(typeof REPORT_REASONS)[number], string>> = {
  illegal: 'Illegal content',
  underage: 'May involve someone under 18',
  non_consensual: 'Shared without consent',
  copyright: 'Copyright infringement',
  spam: 'Spam or scam',
  harassment: 'Harassment or hate',
  other: 'Something else',
};

/** An open report, a resolved one; how an admin resolved it (the reporter is told which). */
export const REPORT_STATUSES = ['open', 'resolved'] as const;
export const REPORT_OUTCOMES = ['removed', 'suspended', 'dismissed'] as const;
/** What an admin does with the reports of one target: remove the content, suspend its owner's account, or dismiss. */
export const REPORT_ACTIONS = ['remove', 'suspend', 'dismiss'] as const;

/** Reports are resolved within this many days; older open ones are overdue in the console. */
export const REPORT_OVERDUE_DAYS = 7;
/** The reporter's optional words. */
export const REPORT_DETAILS_MAX_LENGTH = 1000;
