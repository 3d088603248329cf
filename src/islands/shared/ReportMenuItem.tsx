/**
 * The "Report" entry of an item's ⋯ menu (a `<details>`, as comments and messages have): it closes the menu first, so
 * the report dialog opens over a page with nothing else unfolded, then asks the island to open its dialog.
 */
export function ReportMenuItem({ onReport, testId }: { onReport: () => void; testId: string }) {
  return (
    <button
      type="button"
      className="btn btn--link"
      aria-haspopup="dialog"
      onClick={(e) => {
        e.currentTarget.closest('details')?.removeAttribute('open');
        onReport();
      }}
      data-testid={testId}
    >
      Report
    </button>
  );
}
