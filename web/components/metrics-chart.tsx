import type { Schema } from "../../sdk/index";
import { NetworkIcon } from "./network";

type MetricsEntry = Schema<"MetricsEntry">;

const WHY: Record<string, string> = {
  not_published: "Not published on this network yet.",
  platform_not_supported: "This network does not report metrics for a post.",
  api_error: "The network did not answer; refresh in a moment.",
  platform_access_denied: "The network does not let this app read the post's metrics (its access tier).",
};

const WIDTH = 160;

/**
 * Each network's metrics as a table with a small inline SVG bar per value (bars scaled to the largest value of that
 * network). The numbers are in the table, so the bars are decoration (aria-hidden).
 */
export function MetricsChart({ entries }: { entries: MetricsEntry[] }) {
  return (
    <div class="metrics">
      {entries.map((entry) => {
        const items = Array.isArray(entry.metrics) ? entry.metrics : null;
        const max = items ? Math.max(1, ...items.map((m) => m.value)) : 1;
        return (
          <div key={entry.post_platform_id} class="metrics-entry">
            <h3>
              <NetworkIcon platform={entry.platform} withName />
            </h3>
            {!items ? (
              <p class="muted small">{WHY[(entry.metrics as Schema<"UnsupportedMetrics">).reason] ?? "No metrics."}</p>
            ) : items.length === 0 ? (
              <p class="muted small">No metrics reported yet.</p>
            ) : (
              <table class="metrics-table">
                <tbody>
                  {items.map((m) => (
                    <tr key={m.label}>
                      <th scope="row">{m.label}</th>
                      <td class="metrics-value">{m.value.toLocaleString()}</td>
                      <td>
                        <svg width={WIDTH} height="12" viewBox={`0 0 ${WIDTH} 12`} aria-hidden="true" focusable="false">
                          <rect x="0" y="1" width={WIDTH} height="10" rx="2" fill="#e4e7ec" />
                          <rect
                            x="0"
                            y="1"
                            width={Math.max(m.value > 0 ? 2 : 0, Math.round((m.value / max) * WIDTH))}
                            height="10"
                            rx="2"
                            fill="#1d4ed8"
                          />
                        </svg>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </div>
        );
      })}
    </div>
  );
}
