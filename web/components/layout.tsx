import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { Link, useLocation } from "../router";
import { canEdit, type Role } from "../session";
import { useSession } from "../session-context";

/** The main navigation; `shownTo` hides what a role cannot do (a viewer is not offered Compose). */
export const NAV: { to: string; label: string; shownTo?: (role: Role) => boolean }[] = [
  { to: "/calendar", label: "Calendar" },
  { to: "/posts", label: "Posts" },
  { to: "/compose", label: "Compose", shownTo: canEdit },
  { to: "/queues", label: "Queues" },
  { to: "/accounts", label: "Accounts" },
  { to: "/settings", label: "Settings" },
];

function WorkspaceSwitcher() {
  const { me, membership, switchWorkspace } = useSession();
  if (me.memberships.length < 2)
    return (
      <p class="workspace-name">
        <span class="visually-hidden">Workspace: </span>
        {membership.workspace_name}
      </p>
    );
  return (
    <div class="workspace-switcher">
      <label for="workspace-switcher">Workspace</label>
      <select
        id="workspace-switcher"
        value={membership.workspace_id}
        onChange={(e) => switchWorkspace((e.currentTarget as HTMLSelectElement).value)}
      >
        {me.memberships.map((m) => (
          <option key={m.workspace_id} value={m.workspace_id}>
            {m.workspace_name} ({m.role})
          </option>
        ))}
      </select>
    </div>
  );
}

/** Header (brand, workspace, person, sign out), navigation and the page. Focus moves to the page on navigation. */
export function Layout({ children }: { children: ComponentChildren }) {
  const { me, membership, signOut } = useSession();
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [path]);
  return (
    <div class="layout">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link to="/" class="brand">
          Edge Social Publisher
        </Link>
        <WorkspaceSwitcher />
        <div class="person">
          <span class="person-name">{me.user.name || me.user.email}</span>
          <span class="role-badge">{membership.role}</span>
          <button type="button" class="button button-quiet" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav class="nav" aria-label="Main">
        <ul>
          {NAV.filter((item) => item.shownTo?.(membership.role) ?? true).map((item) => {
            const active = path === item.to || path.startsWith(`${item.to}/`);
            return (
              <li key={item.to}>
                <Link to={item.to} aria-current={active ? "page" : undefined}>
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
