/** Vendor shapes shared by every Meta Graph host (graph.facebook.com, graph.instagram.com, graph.threads.net). */

/** `{"error":{…}}` — the one error envelope of all Meta hosts. */
export interface GraphErrorBody {
  error?: {
    message?: string;
    type?: string;
    code?: number;
    error_subcode?: number;
    error_user_title?: string;
    error_user_msg?: string;
    is_transient?: boolean;
    fbtrace_id?: string;
  };
}

/** One entry of `X-Business-Use-Case-Usage` (values are percentages; the estimate is in minutes). */
export interface BusinessUseCaseUsage {
  type?: string;
  call_count?: number;
  total_cputime?: number;
  total_time?: number;
  estimated_time_to_regain_access?: number;
}

/** `X-App-Usage` / `X-Page-Usage` (percentages of quota). */
export interface AppUsage {
  call_count?: number;
  total_cputime?: number;
  total_time?: number;
}

/** `X-Ad-Account-Usage`-style JSON; `reset_time_duration` in seconds. */
export interface AdAccountUsage {
  acc_id_util_pct?: number;
  reset_time_duration?: number;
}

/** `GET /{id}/insights` → one entry per metric; media metrics use `values`, some use `total_value`. */
export interface InsightsResponse {
  data?: Array<{
    name: string;
    period?: string;
    values?: Array<{ value: number | Record<string, number> }>;
    total_value?: { value: number | Record<string, number> };
    title?: string;
    description?: string;
    id?: string;
  }>;
}

/** `refresh_access_token` answer (Instagram, Threads). */
export interface RefreshTokenResponse {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
}
