/** The dashboard's paths (pure: no DOM), used by web/router.tsx and tested in test/web/paths.test.ts. */
export const BASE = "/app";

/** The dashboard path of a URL's pathname: "/app" and "/app/" → "/", "/app/posts/1" → "/posts/1". */
export function pathUnderBase(pathname: string): string {
  if (pathname === BASE || pathname === `${BASE}/`) return "/";
  return pathname.startsWith(`${BASE}/`) ? pathname.slice(BASE.length) : pathname;
}

/** The URL of a dashboard path ("/posts?page=2" → "/app/posts?page=2"). */
export function href(to: string): string {
  return to === "/" ? BASE : to.startsWith("/?") ? `${BASE}${to.slice(1)}` : `${BASE}${to}`;
}

/** `matchRoute("/posts/:id", "/posts/42")` → `{ id: "42" }`; null when the path does not match. */
export function matchRoute(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const have = path.split("/").filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const h = have[i] as string;
    if (w.startsWith(":")) {
      try {
        params[w.slice(1)] = decodeURIComponent(h);
      } catch {
        return null; // a malformed escape (`%E0`) names no page
      }
    } else if (w !== h) return null;
  }
  return params;
}
