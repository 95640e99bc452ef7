import type { Metric } from "../types";
import type { InsightsResponse } from "./types";

/**
 * Insights payload → metric name → number. Media metrics come as `values[0].value`, some as `total_value.value`;
 * object values (e.g. `post_reactions_by_type_total` = {like, love, …}) are summed.
 */
export function insightValues(resp: InsightsResponse | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of resp?.data ?? []) {
    const raw = entry.values?.[0]?.value ?? entry.total_value?.value;
    out[entry.name] = toNumber(raw);
  }
  return out;
}

function toNumber(raw: unknown): number {
  if (typeof raw === "number" && Number.isFinite(raw)) return raw;
  if (raw && typeof raw === "object") {
    return Object.values(raw as Record<string, unknown>).reduce<number>((sum, v) => sum + toNumber(v), 0);
  }
  return 0;
}

/** Maps metric names to decisions §11 labels, in the label order given; a metric Meta left out counts 0. */
export function labelMetrics(
  values: Record<string, number>,
  labels: ReadonlyArray<[label: string, metric: string]>,
): Metric[] {
  return labels.map(([label, metric]) => ({ label, value: values[metric] ?? 0 }));
}
