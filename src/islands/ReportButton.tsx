import { useState } from 'react';
import type { ReportTargetType } from '../../common/enums.js';
import { ReportDialog } from './shared/ReportDialog.js';

export interface ReportButtonProps {
  targetType: ReportTargetType;
  targetId: string;
  /** What is reported, in words: "this video", "this performer". */
  what: string;
}

/**
 * "Report" on a performer's or an item's page, for a signed-in visitor (a guest gets a link to log in, rendered by
 * src/components/ReportAction.astro without JavaScript): opens the report dialog.
 */
export default function ReportButton({ targetType, targetId, what }: ReportButtonProps) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="btn btn--link report-action" aria-haspopup="dialog" onClick={() => setOpen(true)} data-testid="report-button">
        Report {what}
      </button>
      <ReportDialog open={open} targetType={targetType} targetId={targetId} what={what} onClose={() => setOpen(false)} />
    </>
  );
}
