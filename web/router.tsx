import type { ComponentChildren, PartialAnchorHTMLAttributes } from "preact";
import { useEffect, useState } from "preact/hooks";
import { href, pathUnderBase } from "./lib/paths";

export { BASE, href, matchRoute } from "./lib/paths";

/**
 * A router of a few lines for the dashboard's paths under `/app` (History API): `useLocation()` re-renders on every
 * navigation, `<Link to="/posts">` navigates without a page load, `matchRoute("/posts/:id", path)` reads parameters.
 * Paths given to it are relative to `/app` ("/" is the dashboard's home).
 */

export interface Location {
  /** The path under /app, "/" for /app itself. */
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();

function current(): Location {
  return { path: pathUnderBase(window.location.pathname), query: new URLSearchParams(window.location.search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}) {
  const url = href(to);
  if (url === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
  for (const l of listeners) l();
}

/** The current location; the component re-renders on every navigation (links, back and forward). */
export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    window.addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return location;
}

type AnchorProps = Omit<PartialAnchorHTMLAttributes<HTMLAnchorElement>, "href" | "role"> & {
  to: string;
  children?: ComponentChildren;
};

/** A link inside the dashboard: a real `<a href>` (open in a new tab works), navigated without a page load. */
export function Link({ to, onClick, ...props }: AnchorProps) {
  return (
    <a
      {...props}
      href={href(to)}
      onClick={(e) => {
        if (typeof onClick === "function") onClick(e);
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    />
  );
}
