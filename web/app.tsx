import { useEffect, useMemo, useState } from "preact/hooks";
import { currentWorkspaceId, setWorkspaceId, whenSignedOut } from "./api";
import { Layout } from "./components/layout";
import { ErrorState, Loading } from "./components/states";
import type { InvitePage as InvitePageType } from "./pages/invite";
import NotFoundPage from "./pages/not-found";
import { SignInPage } from "./pages/sign-in";
import { matchRoute, navigate, useLocation } from "./router";
import { HOME, routes } from "./routes";
import { fetchMe, type Me, signOut } from "./session";
import { SessionContext, type SessionValue } from "./session-context";

type Boot =
  | { state: "loading" }
  | { state: "signed-out"; notice?: string }
  | { state: "signed-in"; me: Me }
  | { state: "error"; message: string };

const TITLE = "Edge Social Publisher";

/**
 * The workspace to act in: the one picked before if the person still belongs to it, else the one the server chose
 * (their oldest membership), else the first.
 */
function pickWorkspace(me: Me): string | null {
  const stored = currentWorkspaceId();
  if (stored && me.memberships.some((m) => m.workspace_id === stored)) return stored;
  return me.workspace_id ?? me.memberships[0]?.workspace_id ?? null;
}

function Pages() {
  const location = useLocation();
  useEffect(() => {
    if (location.path === "/") navigate(HOME, { replace: true });
  }, [location.path]);
  for (const route of routes) {
    const params = matchRoute(route.pattern, location.path);
    if (!params) continue;
    document.title = `${route.title} · ${TITLE}`;
    const Page = route.page;
    return <Page params={params} location={location} />;
  }
  if (location.path === "/") return <Loading />;
  document.title = `Not found · ${TITLE}`;
  return <NotFoundPage />;
}

type InviteProps = Parameters<typeof InvitePageType>[0];
let loadedInvite: typeof InvitePageType | null = null;
/** The invitation page, loaded when a link is opened (its own chunk: a first visit to sign in does not load it). */
function InvitePage(props: InviteProps) {
  const [Page, setPage] = useState(() => loadedInvite);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (Page) return;
    import("./pages/invite")
      .then((m) => {
        loadedInvite = m.InvitePage;
        setPage(() => m.InvitePage);
      })
      .catch(() => setFailed(true));
  }, [Page]);
  if (Page) return <Page {...props} />;
  return (
    <main id="main" class="boot">
      {failed ? (
        <ErrorState
          message="This page could not be loaded; the dashboard may have been updated. Reload the page."
          onRetry={() => window.location.reload()}
        />
      ) : (
        <Loading />
      )}
    </main>
  );
}

export function App() {
  const location = useLocation();
  const [boot, setBoot] = useState<Boot>({ state: "loading" });
  const [workspace, setWorkspace] = useState<string | null>(null);

  async function load(notice?: string) {
    const result = await fetchMe();
    if (result.ok) {
      const chosen = pickWorkspace(result.data);
      setWorkspaceId(chosen);
      setWorkspace(chosen);
      setBoot({ state: "signed-in", me: result.data });
    } else if (result.status === 401 || result.status === 404) {
      setBoot(notice ? { state: "signed-out", notice } : { state: "signed-out" });
    } else {
      setBoot({ state: "error", message: result.message });
    }
  }

  useEffect(() => {
    whenSignedOut(() => setBoot({ state: "signed-out", notice: "Your session has ended. Sign in again to go on." }));
    void load();
  }, []);

  const session = useMemo<SessionValue | null>(() => {
    if (boot.state !== "signed-in") return null;
    const membership = boot.me.memberships.find((m) => m.workspace_id === workspace);
    if (!membership) return null;
    return {
      me: boot.me,
      membership,
      switchWorkspace: (id) => {
        setWorkspaceId(id);
        setWorkspace(id);
      },
      signOut: async () => {
        await signOut();
        setWorkspaceId(null);
        setBoot({ state: "signed-out", notice: "You are signed out." });
      },
    };
  }, [boot, workspace]);

  if (boot.state === "loading")
    return (
      <main id="main" class="boot">
        <Loading label="Opening the dashboard…" />
      </main>
    );
  if (boot.state === "error")
    return (
      <main id="main" class="boot">
        <h1>{TITLE}</h1>
        <ErrorState
          title="The dashboard could not start"
          message={`${boot.message} Check that the server is running, then try again.`}
          onRetry={() => void load()}
        />
      </main>
    );
  // An invitation link (/app/invite#<token>) is answered signed in or not: joining may create the account.
  if (location.path === "/invite") {
    document.title = `Join a workspace · ${TITLE}`;
    return (
      <InvitePage
        me={boot.state === "signed-in" ? boot.me : null}
        onJoined={() => {
          navigate(HOME, { replace: true });
          void load();
        }}
      />
    );
  }
  if (boot.state === "signed-out") {
    document.title = `Sign in · ${TITLE}`;
    return <SignInPage notice={boot.notice} onSignedIn={() => void load()} />;
  }
  if (!session)
    return (
      <main id="main" class="boot">
        <h1>{TITLE}</h1>
        <ErrorState
          title="You are not a member of any workspace"
          message="Ask an owner or admin of a workspace for an invitation link, then open it while signed in."
        >
          <button type="button" class="button" onClick={() => void signOut().then(() => load())}>
            Sign out
          </button>
        </ErrorState>
      </main>
    );
  return (
    <SessionContext.Provider value={session}>
      <Layout>
        {/* A new workspace is a fresh page: nothing of the previous workspace's data survives the switch. */}
        <Pages key={session.membership.workspace_id} />
      </Layout>
    </SessionContext.Provider>
  );
}
