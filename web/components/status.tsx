const LABELS: Record<string, string> = {
  draft: "Draft",
  scheduled: "Scheduled",
  publishing: "Publishing",
  published: "Published",
  partially_published: "Partly published",
  failed: "Failed",
  pending: "Pending",
};

export const statusLabel = (status: string) => LABELS[status] ?? status;

/** A post's or a row's status, in words and in its colour. */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`status status-${status}`}>{statusLabel(status)}</span>;
}
