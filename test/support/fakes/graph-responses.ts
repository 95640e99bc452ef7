/**
 * The Graph answer builders the Meta fakes share (meta.ts, long-lived-tokens.ts): the JSON envelope with
 * `x-app-usage`, the `{"error":{…}}` envelope and Meta's expired-token answer. A module of its own so the token
 * lifetimes and the Graph fake do not import each other (Biome noImportCycles covers test/ too).
 */

export interface GraphErrorFields {
  message: string;
  type?: string;
  code: number;
  error_subcode?: number;
  error_user_title?: string;
  error_user_msg?: string;
  is_transient?: boolean;
}

let trace = 0;
export const APP_USAGE_OK = JSON.stringify({ call_count: 1, total_cputime: 1, total_time: 1 });

export function graphJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=UTF-8", "x-app-usage": APP_USAGE_OK, ...headers },
  });
}

export function graphErrorResponse(
  status: number,
  e: GraphErrorFields,
  headers: Record<string, string> = {},
): Response {
  const error = { type: "OAuthException", is_transient: false, ...e, fbtrace_id: `AfakeTrace${++trace}` };
  return graphJson({ error }, status, {
    "www-authenticate": `OAuth "Facebook Platform" "${error.type}" "${e.message}"`,
    ...headers,
  });
}

/** An expired token, as Meta answers it: HTTP 400, OAuthException 190 / 463. */
export function expiredTokenResponse(): Response {
  return graphErrorResponse(400, {
    message:
      "Error validating access token: Session has expired on Tuesday, 18-Nov-25 10:00:00 PST. The current time is Wednesday, 19-Nov-25 02:00:00 PST.",
    code: 190,
    error_subcode: 463,
  });
}
