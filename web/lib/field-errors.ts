/**
 * A 422 from the API names each problem by its field path (`errors`: `{"platforms.1.content": ["…"]}`). A form lists
 * the paths it shows, in the order it shows them; every problem lands on the field with the longest path that is the
 * problem's path or a prefix of it (`scopes.0` → `scopes`), and what no field shows stays a general message, so
 * nothing the server said is lost.
 */
export interface MappedErrors {
  /** Field path → its messages, joined. */
  fields: Record<string, string>;
  /** Problems of no shown field (and the body's `message` when no field got one). */
  general: string[];
  /** The first field (in the form's order) with a problem: where focus goes. */
  first: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

export function mapFieldErrors(error: unknown, shown: readonly string[]): MappedErrors {
  const fields: Record<string, string[]> = {};
  const general: string[] = [];
  const errors = isRecord(error) && isRecord(error.errors) ? error.errors : {};
  for (const [path, value] of Object.entries(errors)) {
    const messages = Array.isArray(value) ? value.filter((m): m is string => typeof m === "string") : [];
    if (messages.length === 0) continue;
    let target: string | null = null;
    for (const field of shown) {
      if ((path === field || path.startsWith(`${field}.`)) && (target === null || field.length > target.length))
        target = field;
    }
    if (target === null) general.push(...messages);
    else fields[target] = [...(fields[target] ?? []), ...messages];
  }
  const message = isRecord(error) && typeof error.message === "string" ? error.message : null;
  if (Object.keys(fields).length === 0 && general.length === 0 && message) general.push(message);
  const joined: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) joined[k] = [...new Set(v)].join(" ");
  return { fields: joined, general: [...new Set(general)], first: shown.find((f) => f in joined) ?? null };
}

/** The DOM id of a field path (`platforms.1.content` → `f-platforms-1-content`), so an error can name its control. */
export const fieldId = (path: string) => `f-${path.replace(/[^A-Za-z0-9_-]+/g, "-")}`;
