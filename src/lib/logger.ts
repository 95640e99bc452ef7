/**
 * Structured JSON logs, one object per line. Callers pass plain fields; anything that looks like a secret
 * (authorization headers, tokens, credentials) is redacted before printing.
 */
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_KEY = /authorization|token|secret|password|credential|signature|cookie|api[_-]?key/i;

/**
 * drizzle's DrizzleQueryError message (and so its stack) ends with the statement's bound values — post content,
 * sealed credentials, token hashes: `Failed query: <sql>\nparams: <values>`. Every logged string has them cut.
 */
const QUERY_PARAMS = /(Failed query:[\s\S]*?\n\s*params:)[^\n]*/g;
export const redactQueryParams = (text: string) => text.replace(QUERY_PARAMS, "$1 [redacted]");

function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return value.includes("params:") ? redactQueryParams(value) : value;
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? "[redacted]" : redact(v, depth + 1);
  return out;
}

let threshold: number = ORDER.info;
export function setLogLevel(level: Level | "silent"): void {
  threshold = ORDER[level];
}

export function log(level: Level, event: string, fields: Record<string, unknown> = {}): void {
  if (ORDER[level] < threshold) return;
  const line = JSON.stringify({ level, event, time: new Date().toISOString(), ...(redact(fields) as object) });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/**
 * The loggable fields of an error: name, message, stack, and the cause's message (D1's own error, under a
 * DrizzleQueryError) — bound query values redacted from all of them. The error's own properties (drizzle keeps
 * `params`) are never copied.
 */
export function errorFields(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? { error_cause: redactQueryParams(err.cause.message) } : {};
    return {
      error: err.name,
      error_message: redactQueryParams(err.message),
      stack: err.stack ? redactQueryParams(err.stack) : err.stack,
      ...cause,
    };
  }
  return { error: redactQueryParams(String(err)) };
}

/**
 * Runs `step` on each item one after another, a failing item logged as `event` (with `fields(item)`) and skipped so
 * the rest still run; how many answered true. The cron's per-item steps (repeats, evergreen refills) use it.
 */
export async function countEach<T>(
  items: readonly T[],
  step: (item: T) => Promise<boolean>,
  event: string,
  fields: (item: T) => Record<string, unknown>,
): Promise<number> {
  let done = 0;
  for (const item of items) {
    try {
      if (await step(item)) done++;
    } catch (err) {
      log("error", event, { ...fields(item), ...errorFields(err) });
    }
  }
  return done;
}
