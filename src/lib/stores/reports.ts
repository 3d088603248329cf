import { ApiError, errorMessage } from '../api/error.js';
import type { CreateReportRequest } from '../../../common/schemas/reports.js';
import { call } from './client.js';

/**
 * Sending a report (docs/product.md, Reports). The dialog keeps its own fields; this says how it went, in words:
 * `sent`, or `already` when the reporter's earlier report of it is still open (the server's 409), or the error.
 */
export type ReportOutcome = { status: 'sent' } | { status: 'already'; message: string } | { status: 'error'; message: string };

export async function sendReport(body: CreateReportRequest): Promise<ReportOutcome> {
  try {
    await call(({ engagement }) => engagement.report(body));
    return { status: 'sent' };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'ALREADY_REPORTED') return { status: 'already', message: err.message };
    return { status: 'error', message: errorMessage(err, 'Error occured, please try again later') };
  }
}
