import type { z } from "zod";
import { type AppError, type FieldErrors, notFound, validationError } from "./errors";

/**
 * Turns zod issues into Laravel-style field errors: dotted paths (`platforms.0.content_type`) and sentences that
 * name the field. Every issue is reported, not only the first.
 */
type Issue = z.core.$ZodIssue;

const valueAt = (data: unknown, path: PropertyKey[]): unknown => {
  let cur: unknown = data;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
};

const TYPE_WORDS: Record<string, string> = {
  string: "must be a string",
  number: "must be a number",
  int: "must be an integer",
  boolean: "must be true or false",
  array: "must be an array",
  object: "must be an object",
};

function describe(issue: Issue, attribute: string, data: unknown): string {
  const the = `The ${attribute} field`;
  switch (issue.code) {
    case "invalid_type": {
      const value = valueAt(data, issue.path);
      if (value === undefined || value === null) return `${the} is required.`;
      return `${the} ${TYPE_WORDS[issue.expected] ?? `must be of type ${issue.expected}`}.`;
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") return `${the} must not be greater than ${max} characters.`;
      if (issue.origin === "array" || issue.origin === "set") return `${the} must not have more than ${max} items.`;
      return `${the} must not be greater than ${max}.`;
    }
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string")
        return min <= 1 ? `${the} is required.` : `${the} must be at least ${min} characters.`;
      if (issue.origin === "array" || issue.origin === "set")
        return `${the} must have at least ${min} ${min === 1 ? "item" : "items"}.`;
      return `${the} must be at least ${min}.`;
    }
    case "invalid_format":
      if (issue.format === "uuid" || issue.format === "guid") return `${the} must be a valid UUID.`;
      if (issue.format === "url") return `${the} must be a valid URL.`;
      if (issue.format === "regex" && issue.message && !issue.message.startsWith("Invalid"))
        return issue.message.replace(":attribute", attribute);
      return `${the} format is invalid.`;
    case "invalid_value": {
      // zod reports a missing enum value as invalid_value, not invalid_type.
      const value = valueAt(data, issue.path);
      if (value === undefined || value === null) return `${the} is required.`;
      return `The selected ${attribute} is invalid.`;
    }
    case "invalid_union":
      return `${the} is invalid.`;
    default:
      return (issue.message ?? "is invalid.").replace(":attribute", attribute);
  }
}

export function zodIssuesToFieldErrors(
  issues: readonly Issue[],
  data: unknown,
  prefix: PropertyKey[] = [],
): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const key = path.length ? path.map(String).join(".") : "body";
    const attribute = key.replace(/_/g, " ");
    const message = describe(issue, attribute, data);
    const list = errors[key] ?? [];
    if (!list.includes(message)) list.push(message);
    errors[key] = list;
  }
  return errors;
}

/** Validation failure for a request part. Path parameters that fail are "not found", never 422. */
export function validationFailure(target: string, issues: readonly Issue[], data: unknown): AppError {
  if (target === "param") return notFound();
  return validationError(zodIssuesToFieldErrors(issues, data));
}

/** Parses with a schema and throws the standard 422 on failure (queue messages, tool inputs, services). */
export function parseOrThrow<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const result = schema.safeParse(data);
  if (!result.success) throw validationError(zodIssuesToFieldErrors(result.error.issues, data));
  return result.data;
}

/**
 * The parts of a request body that are well formed, for the checks that run on them while its shape errors are
 * reported (one round of validation, docs/limits.md). For each field of `schema` the body carries: the parsed value
 * when the field is valid; else, for an array within its bound, the items that parse at their own index and
 * `undefined` holes for the others (an array past its bound is left out whole, so those checks never do more work
 * than the bound allows). Fields that failed are named in `malformed`.
 */
export function wellFormedParts(
  schema: z.ZodObject,
  raw: unknown,
): { parts: Record<string, unknown>; malformed: Set<string> } {
  const parts: Record<string, unknown> = {};
  const malformed = new Set<string>();
  const body = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    if (!(key in body)) continue;
    const whole = field.safeParse(body[key]);
    if (whole.success) {
      parts[key] = whole.data;
      continue;
    }
    malformed.add(key);
    const list = arraySchemaOf(field);
    const value = body[key];
    const max = list ? maxItemsOf(list) : Number.POSITIVE_INFINITY;
    if (list && Array.isArray(value) && value.length <= max) {
      parts[key] = value.map((item) => {
        const parsed = list.element.safeParse(item);
        return parsed.success ? parsed.data : undefined;
      });
    }
  }
  return { parts, malformed };
}

/** The array's `.max()` (a `max_length` check), or no limit. */
function maxItemsOf(list: z.ZodArray<z.ZodType>): number {
  const checks = (list._zod.def.checks ?? []) as { _zod: { def: { check: string; maximum?: number } } }[];
  const limits = checks.filter((c) => c._zod.def.check === "max_length").map((c) => Number(c._zod.def.maximum));
  return limits.length ? Math.min(...limits) : Number.POSITIVE_INFINITY;
}

/** The array schema inside optional/nullable wrappers, if the field is an array. */
function arraySchemaOf(field: z.ZodType): z.ZodArray<z.ZodType> | undefined {
  let current: z.ZodType = field;
  for (let depth = 0; depth < 4; depth++) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType };
    if (def.type === "array") return current as z.ZodArray<z.ZodType>;
    if ((def.type === "optional" || def.type === "nullable" || def.type === "default") && def.innerType)
      current = def.innerType;
    else return undefined;
  }
  return undefined;
}

/** `a` then `b`, field by field; a message already listed for a field is not repeated. */
export function mergeFieldErrors(a: FieldErrors, b: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  for (const errors of [a, b]) {
    for (const [field, messages] of Object.entries(errors)) {
      const list = out[field] ?? [];
      for (const m of messages) if (!list.includes(m)) list.push(m);
      out[field] = list;
    }
  }
  return out;
}
