/**
 * An answer given before the body was read cancels the body (issue 35). Routes answer before reading whenever they
 * can (an unknown token, a missing key, a declared length past the bound: src/lib/read-body.ts), but an unread
 * request body is not dropped by the runtime: workerd's HTTP server reads it to its end before the answer leaves,
 * so a client sending 20 MiB (or a body that never ends) to `POST /connect/select/<unknown>` waited for all of it
 * (or forever) to see its 404. Cancelling the stream tells the runtime the Worker will not read it: the answer
 * leaves at once and the connection is closed after it.
 *
 * One mechanism at the Worker's entry (src/index.ts), not per route: once the app has produced its Response, a body
 * that nobody started reading (not disturbed, not locked) is cancelled. A body any reader took — the bounded reads,
 * the JSON validator, the upload routes' own drain (src/media/upload-body.ts, which reads the rest on purpose so an
 * upload's 4xx reaches the client) — is left to that reader.
 */
export async function cancellingUnreadBody(request: Request, answer: Response | Promise<Response>): Promise<Response> {
  try {
    return await answer;
  } finally {
    cancelUnread(request);
  }
}

/** Cancels `request.body` when nothing has read or locked it; never throws. */
export function cancelUnread(request: Request): void {
  const body = request.body;
  if (!body || request.bodyUsed || body.locked) return;
  body.cancel().catch(() => {});
}
