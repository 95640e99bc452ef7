/**
 * Typed errors thrown by services. Each transport renders them its own way (HTTP JSON, MCP tool error,
 * queue ack/retry). Anything that is not an AppError is unexpected: a logged 500.
 */
export type FieldErrors = Record<string, string[]>;

export const ERROR_STATUS = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  validation: 422,
  too_many_requests: 429,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors?: FieldErrors;
  readonly headers?: Record<string, string>;
  constructor(code: ErrorCode, message: string, opts: { errors?: FieldErrors; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.errors = opts.errors;
    this.headers = opts.headers;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = () => new AppError("not_found", "Not found.");
export const unauthenticated = () =>
  new AppError("unauthenticated", "Unauthenticated.", { headers: { "WWW-Authenticate": "Bearer" } });
export const conflict = (message: string) => new AppError("conflict", message);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError("too_many_requests", `Too many requests. Retry after ${retryAfterSeconds} seconds.`, {
    headers: { "Retry-After": String(retryAfterSeconds) },
  });

/** Laravel's summary line: the first message, then "(and N more error[s])". */
export function validationMessage(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? "The given data was invalid.";
  const more = all.length - 1;
  return more > 0 ? `${first} (and ${more} more ${more === 1 ? "error" : "errors"})` : first;
}

export function validationError(errors: FieldErrors): AppError {
  return new AppError("validation", validationMessage(errors), { errors });
}

/** Collects field errors across several checks, then throws them all at once. */
export class ErrorBag {
  readonly errors: FieldErrors = {};
  add(field: string, message: string): void {
    const list = this.errors[field] ?? [];
    list.push(message);
    this.errors[field] = list;
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw validationError(this.errors);
  }
}
