import type { FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorState, Loading } from "./components/states";
import type { Location } from "./router";

export interface PageProps {
  params: Record<string, string>;
  location: Location;
}

type PageModule = { default: FunctionComponent<PageProps> };

/** A page loaded the first time it is shown (its own chunk), so the first visit loads only the shell. */
function lazyPage(load: () => Promise<PageModule>): FunctionComponent<PageProps> {
  let loaded: FunctionComponent<PageProps> | null = null;
  return function LazyPage(props: PageProps) {
    const [Page, setPage] = useState(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (Page) return;
      load()
        .then((m) => {
          loaded = m.default;
          setPage(() => m.default);
        })
        .catch(() => setFailed(true));
    }, [Page]);
    if (failed)
      return (
        <ErrorState
          message="This page could not be loaded; the dashboard may have been updated. Reload the page."
          onRetry={() => window.location.reload()}
        />
      );
    return Page ? <Page {...props} /> : <Loading />;
  };
}

export interface Route {
  pattern: string;
  /** The document title while this route is shown. */
  title: string;
  page: FunctionComponent<PageProps>;
}

/** One component for both composer routes: a new post that gets its id (`/compose/<id>`) keeps what was typed. */
const composer = lazyPage(() => import("./pages/composer"));

/** Every page of the dashboard. The navigation lists some of them (web/components/layout.tsx). */
export const routes: Route[] = [
  { pattern: "/calendar", title: "Calendar", page: lazyPage(() => import("./pages/calendar")) },
  { pattern: "/posts", title: "Posts", page: lazyPage(() => import("./pages/posts")) },
  { pattern: "/posts/:id", title: "Post", page: lazyPage(() => import("./pages/post-detail")) },
  { pattern: "/compose", title: "Compose", page: composer },
  { pattern: "/compose/:id", title: "Edit post", page: composer },
  { pattern: "/queues", title: "Queues", page: lazyPage(() => import("./pages/queues")) },
  { pattern: "/accounts", title: "Accounts", page: lazyPage(() => import("./pages/accounts")) },
  { pattern: "/settings", title: "Settings", page: lazyPage(() => import("./pages/settings")) },
];

/** Where `/app` itself leads. */
export const HOME = "/calendar";
