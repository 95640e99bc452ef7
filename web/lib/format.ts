/** Text as a person reads it in a list or a chip (times are web/lib/time.ts). */

/** The first line of a post's text, shortened for a chip or a list row. */
export function excerpt(text: string | null | undefined, max = 80): string {
  const line = (text ?? "").trim().split("\n")[0] ?? "";
  if (!line) return "(no text)";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
