/**
 * Bounds for free-form JSON a client stores (`meta` objects): how deep it nests and how large it is serialized.
 * Measured iteratively, so a hostile 100,000-level nesting is refused with a 422, never a stack overflow (500).
 * Documented in docs/security.md ("Limits").
 */
export const META_MAX_DEPTH = 8;
export const META_MAX_BYTES = 16 * 1024;

/** Nesting depth of a JSON value: a scalar is 0, `{}` or `[]` is 1, `{"a": []}` is 2. Stops past `limit`. */
export function jsonDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== "object") continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, here]);
  }
  return deepest;
}

type IssueSink = { addIssue: (issue: { code: "custom"; message: string }) => void };

/** A zod refinement: the depth bound only, for a field whose size another rule bounds (post-platform meta). */
export function boundedMetaDepth(value: unknown, ctx: IssueSink) {
  if (jsonDepth(value, META_MAX_DEPTH) > META_MAX_DEPTH)
    ctx.addIssue({
      code: "custom",
      message: `The :attribute field must not nest deeper than ${META_MAX_DEPTH} levels.`,
    });
}

/** A zod refinement adding `metaProblem` as a validation issue of the field (422 with its dotted path). */
export function boundedMeta(value: unknown, ctx: IssueSink) {
  const problem = metaProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
}

/** Why `value` is not an acceptable `meta`, or null. Depth is checked first so serializing it cannot overflow. */
export function metaProblem(value: unknown): string | null {
  if (jsonDepth(value, META_MAX_DEPTH) > META_MAX_DEPTH)
    return `The :attribute field must not nest deeper than ${META_MAX_DEPTH} levels.`;
  if (new TextEncoder().encode(JSON.stringify(value) ?? "").byteLength > META_MAX_BYTES)
    return `The :attribute field must not be larger than ${META_MAX_BYTES} bytes as JSON.`;
  return null;
}
