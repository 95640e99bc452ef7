import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { routePath } from "hono/route";
import { PAGE_HEADERS, resultPage } from "../connect/pages";
import { AppError } from "../lib/errors";
import { errorFields, log } from "../lib/logger";
import type { AppEnv } from "../types";
import { loggablePath } from "./log-path";

export function renderAppError(c: Context, err: AppError): Response {
  if (new URL(c.req.url).pathname.startsWith("/connect/")) return hostedErrorPage(err);
  const body: Record<string, unknown> = { message: err.message };
  if (err.errors) body.errors = err.errors;
  const res = c.json(body, err.status as 400);
  for (const [k, v] of Object.entries(err.headers ?? {})) res.headers.set(k, v);
  return res;
}

const HOSTED_TITLES: Partial<Record<number, string>> = {
  413: "The form was too large",
  429: "Too many attempts",
};

/** A typed error on a hosted connect page (a browser, not an API client) is a page, with the same status. */
function hostedErrorPage(err: AppError): Response {
  const text =
    err.status === 429
      ? `Too many attempts. Try again in ${err.headers?.["Retry-After"] ?? "a few"} seconds.`
      : err.message;
  const body = resultPage({ ok: false, title: HOSTED_TITLES[err.status] ?? "Something went wrong", text });
  return new Response(body, { status: err.status, headers: { ...PAGE_HEADERS, ...err.headers } });
}

/** Only typed errors become 4xx; everything else is a logged 500 that reveals nothing. */
export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof AppError) return renderAppError(c, err);
  if (err instanceof HTTPException) {
    if (err.status === 413) return c.json({ message: "Payload too large." }, 413);
    if (err.status === 400 && /json/i.test(err.message)) return c.json({ message: "Malformed JSON body." }, 400);
    if (err.status < 500) return c.json({ message: err.message || "Bad request." }, err.status);
  }
  log("error", "unhandled_error", {
    request_id: c.get("requestId"),
    route: routePath(c),
    path: loggablePath(c),
    ...errorFields(err),
  });
  return c.json({ message: "Server error." }, 500);
};

/** 404 for unknown paths, 405 with `Allow` when the path exists under another method. */
export function notFoundHandler(routes: () => { method: string; path: string }[]): NotFoundHandler<AppEnv> {
  let compiled: { method: string; re: RegExp }[] | null = null;
  return (c) => {
    compiled ??= routes()
      .filter((r) => r.method !== "ALL" && !r.path.includes("*"))
      .map((r) => ({
        method: r.method,
        re: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_]+/g, "[^/]+")}/?$`),
      }));
    const path = new URL(c.req.url).pathname;
    const allowed = [...new Set(compiled.filter((r) => r.re.test(path)).map((r) => r.method))];
    if (allowed.length > 0) {
      if (allowed.includes("GET") && !allowed.includes("HEAD")) allowed.push("HEAD");
      return c.json({ message: "Method not allowed." }, 405, { Allow: allowed.join(", ") });
    }
    return c.json({ message: "Not found." }, 404);
  };
}
