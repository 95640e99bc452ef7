import { useEffect, useRef, useState } from "preact/hooks";
import { errorMessage, fieldErrors, type Schema } from "../../sdk/index";
import { api } from "../api";
import { ConfirmButton, Field, FormErrors, inputValue, useFormErrors } from "../components/form";
import { NetworkIcon, networkName } from "../components/network";
import { EmptyState, LoadedView } from "../components/states";
import { preferredTimeZone } from "../components/time-zone-pref";
import { useApi } from "../components/use-api";
import { formatApiTime } from "../lib/time";
import { href, navigate } from "../router";
import type { PageProps } from "../routes";
import { canEdit } from "../session";
import { useSession } from "../session-context";

type Account = Schema<"SocialAccount">;
type Platform = Schema<"StartConnectRequest">["platform"];

/** Networks that connect with a consent page (OAuth); Bluesky uses an app password, Mastodon asks for its server. */
const OAUTH: Platform[] = [
  "x",
  "linkedin",
  "linkedin-page",
  "facebook",
  "instagram",
  "instagram-facebook",
  "threads",
  "tiktok",
  "youtube",
  "pinterest",
];

/** Where the browser comes back after a consent page: this page (the server allows its own /app pages). */
const returnUrl = () => `${window.location.origin}${href("/accounts")}`;

function health(account: Account, zone: string): { cls: string; text: string } {
  if (account.status === "disconnected") return { cls: "status-draft", text: "Disconnected" };
  if (account.health === "needs_reconnect" || account.status === "token_expired")
    return { cls: "status-failed", text: "Needs reconnecting" };
  if (account.health === "expiring")
    return {
      cls: "status-publishing",
      text: account.expires_at ? `Expires ${formatApiTime(account.expires_at, zone)}` : "Expiring",
    };
  return { cls: "status-published", text: "Connected" };
}

/** Starts an OAuth flow and sends the browser to the answer's URL; a 422 (not configured, bad server) comes back. */
async function startOAuth(platform: Platform, instance?: string): Promise<{ error: unknown } | null> {
  const { data, error } = await api.POST("/api/social-accounts/connect", {
    body: { platform, redirect_url: returnUrl(), ...(instance ? { instance } : {}) },
  });
  if (data) {
    window.location.assign(data.url);
    return null;
  }
  return { error };
}

function OAuthButtons() {
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<{ platform: string; message: string } | null>(null);
  return (
    <div>
      <ul class="connect-grid">
        {OAUTH.map((p) => {
          const label = networkName(p);
          return (
            <li key={p}>
              <button
                type="button"
                class="button connect-button"
                disabled={busy !== null}
                aria-describedby={problem?.platform === p ? "connect-problem" : undefined}
                onClick={async () => {
                  setBusy(p);
                  setProblem(null);
                  const failed = await startOAuth(p);
                  if (failed) {
                    setBusy(null);
                    const errs = fieldErrors(failed.error);
                    setProblem({
                      platform: p,
                      message: errs.platform?.[0] ?? errorMessage(failed.error, `${label} could not be started.`),
                    });
                  }
                }}
              >
                {/* The name is the visible text alone (axe label-content-name-mismatch): the mark is decoration. */}
                <span aria-hidden="true">
                  <NetworkIcon platform={p} />
                </span>
                {busy === p ? `Opening ${label}…` : `Connect ${label}`}
              </button>
            </li>
          );
        })}
      </ul>
      {problem && (
        <p id="connect-problem" class="field-error" role="alert">
          {problem.message}
        </p>
      )}
    </div>
  );
}

function MastodonForm() {
  const [instance, setInstance] = useState("");
  const [busy, setBusy] = useState(false);
  const { errors, formRef, fail, clear } = useFormErrors();
  return (
    <form
      ref={formRef}
      onSubmit={async (e) => {
        e.preventDefault();
        clear();
        setBusy(true);
        const failed = await startOAuth("mastodon", instance.trim());
        if (failed) {
          setBusy(false);
          fail(failed.error, ["instance", "platform"], "Mastodon could not be started.");
        }
      }}
    >
      <h3>Mastodon</h3>
      <Field
        path="instance"
        label="Your Mastodon server"
        hint="For example mastodon.social."
        error={errors.fields.instance ?? errors.fields.platform}
      >
        {(a) => (
          <input
            {...a}
            required
            autocomplete="url"
            placeholder="mastodon.social"
            value={instance}
            onInput={(e) => setInstance(inputValue(e))}
          />
        )}
      </Field>
      <FormErrors messages={errors.general} />
      <button type="submit" class="button button-primary" disabled={busy}>
        {busy ? "Opening Mastodon…" : "Connect Mastodon"}
      </button>
    </form>
  );
}

function BlueskyForm({
  onConnected,
  initialHandle = "",
}: {
  onConnected: (name: string) => void;
  initialHandle?: string;
}) {
  const [identifier, setIdentifier] = useState(initialHandle);
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [service, setService] = useState("");
  const [busy, setBusy] = useState(false);
  const { errors, formRef, fail, clear } = useFormErrors();
  const shown = ["display_name", "credentials.identifier", "credentials.app_password", "meta.service"];
  return (
    <form
      ref={formRef}
      onSubmit={async (e) => {
        e.preventDefault();
        clear();
        setBusy(true);
        const handle = identifier.trim();
        // The handle is the account's own, as its server answers the sign-in (username left empty: the API fills it
        // from the session); the name shown is the one typed, else the handle typed.
        const { data, error } = await api.POST("/api/social-accounts", {
          body: {
            platform: "bluesky",
            display_name: name.trim() || handle.replace(/^@/, ""),
            username: "",
            credentials: { identifier: handle, app_password: password },
            meta: service.trim() ? { service: service.trim() } : {},
          },
        });
        setBusy(false);
        if (!data) return fail(error, shown, "Bluesky could not be connected. Check the handle and app password.");
        setPassword("");
        setIdentifier("");
        setName("");
        setService("");
        onConnected(data.display_name);
      }}
    >
      <h3>Bluesky</h3>
      <Field path="credentials.identifier" label="Handle or email" error={errors.fields["credentials.identifier"]}>
        {(a) => (
          <input
            {...a}
            required
            autocomplete="username"
            value={identifier}
            onInput={(e) => setIdentifier(inputValue(e))}
          />
        )}
      </Field>
      <Field
        path="display_name"
        label="Name shown here (optional)"
        hint="How this dashboard names the account; the handle if left empty."
        error={errors.fields.display_name}
      >
        {(a) => <input {...a} autocomplete="off" value={name} onInput={(e) => setName(inputValue(e))} />}
      </Field>
      <Field
        path="credentials.app_password"
        label="App password"
        hint="Made in Bluesky under Settings → Privacy and security → App passwords."
        error={errors.fields["credentials.app_password"]}
      >
        {(a) => (
          <input
            {...a}
            type="password"
            required
            autocomplete="off"
            value={password}
            onInput={(e) => setPassword(inputValue(e))}
          />
        )}
      </Field>
      <Field
        path="meta.service"
        label="Bluesky server"
        hint="Leave empty for bsky.social."
        error={errors.fields["meta.service"]}
      >
        {(a) => (
          <input
            {...a}
            type="url"
            placeholder="https://bsky.social"
            value={service}
            onInput={(e) => setService(inputValue(e))}
          />
        )}
      </Field>
      <FormErrors messages={errors.general} />
      <button type="submit" class="button button-primary" disabled={busy}>
        {busy ? "Connecting…" : "Connect Bluesky"}
      </button>
    </form>
  );
}

function AccountItem({
  account,
  label,
  canWrite,
  onChanged,
  onReconnectForm,
}: {
  account: Account;
  label: string;
  canWrite: boolean;
  onChanged: (notice: string) => Promise<void>;
  onReconnectForm: (platform: "bluesky" | "mastodon", handle: string) => void;
}) {
  const zone = preferredTimeZone();
  const h = health(account, zone);
  const [problem, setProblem] = useState<string | null>(null);
  const who = `${account.display_name} on ${label}`;
  const warn = account.health !== "ok" || account.status !== "connected";
  return (
    <li class="item item-block account">
      <div class="account-head">
        <NetworkIcon platform={account.platform} />
        <span class="item-main">
          <strong>{account.display_name}</strong>
          <span class="small muted">
            {label}
            {account.username ? ` · @${account.username}` : ""}
          </span>
        </span>
        <span class={`status ${h.cls}`}>{h.text}</span>
        {!account.is_active && account.status === "connected" && <span class="status status-draft">Paused</span>}
      </div>
      {warn && account.status !== "disconnected" && (
        <p class="account-warning">
          {account.health_reason ??
            (account.health === "expiring" ? "Its access ends soon." : "The network refused its access.")}{" "}
          {account.health === "expiring" && account.expires_at && !account.refreshable
            ? `Reconnect before ${formatApiTime(account.expires_at, zone)} so scheduled posts keep publishing.`
            : "Reconnect it so its posts publish."}
        </p>
      )}
      {account.health === "ok" && account.expires_at && (
        <p class="small muted">
          Access ends {formatApiTime(account.expires_at, zone)}
          {account.refreshable ? " (renewed automatically)." : "; reconnect before then."}
        </p>
      )}
      {canWrite && (
        <div class="item-actions">
          <button
            type="button"
            class={`button${warn ? " button-primary" : ""}`}
            aria-label={`Reconnect ${who}`}
            onClick={async () => {
              setProblem(null);
              if (account.platform === "bluesky" || account.platform === "mastodon") {
                onReconnectForm(account.platform, account.username);
                return;
              }
              const failed = await startOAuth(account.platform as Platform);
              if (failed) setProblem(errorMessage(failed.error, "The reconnection could not be started."));
            }}
          >
            Reconnect
          </button>
          {account.status !== "disconnected" && (
            <>
              <button
                type="button"
                class="button"
                aria-label={`${account.is_active ? "Pause" : "Resume"} ${who}`}
                onClick={async () => {
                  const { error, response } = await api.PUT("/api/social-accounts/{id}/toggle", {
                    params: { path: { id: account.id } },
                  });
                  await onChanged(
                    response.ok
                      ? `${who} ${account.is_active ? "paused: its rows are skipped" : "resumed"}.`
                      : errorMessage(error, "Not changed."),
                  );
                }}
              >
                {account.is_active ? "Pause" : "Resume"}
              </button>
              <ConfirmButton
                label="Disconnect"
                name={who}
                question={`Disconnect ${who}? Its credentials are erased; its posts keep their history.`}
                confirmLabel="Yes, disconnect"
                onConfirm={async () => {
                  const { error, response } = await api.DELETE("/api/social-accounts/{id}", {
                    params: { path: { id: account.id } },
                  });
                  await onChanged(response.ok ? `${who} disconnected.` : errorMessage(error, "Not disconnected."));
                }}
              />
            </>
          )}
        </div>
      )}
      {problem && (
        <p class="field-error" role="alert">
          {problem}
        </p>
      )}
    </li>
  );
}

/** Accounts: connected networks with their health, and the ways to connect more (the hosted page's flows). */
export default function AccountsPage({ location }: PageProps) {
  const { membership } = useSession();
  const canWrite = canEdit(membership.role);
  const accounts = useApi(() => api.GET("/api/social-accounts"), [], "The accounts could not be loaded.");
  const [notice, setNotice] = useState<{ kind: "ok" | "error"; text: string; platform?: string } | null>(null);
  const [openForm, setOpenForm] = useState<{ platform: "bluesky" | "mastodon"; handle: string } | null>(null);
  const connectHeading = useRef<HTMLHeadingElement>(null);

  const labelOf = networkName;

  // Back from a consent page: `?connected=<platform>&accounts=<ids>` or `?error=<code>&error_description=…`.
  useEffect(() => {
    const q = location.query;
    const connected = q.get("connected");
    const error = q.get("error");
    if (!connected && !error) return;
    if (connected) setNotice({ kind: "ok", text: "", platform: connected });
    else
      setNotice({
        kind: "error",
        text: `The account was not connected: ${q.get("error_description") || error}. Try again, or reconnect.`,
      });
    navigate("/accounts", { replace: true });
  }, [location.query]);

  useEffect(() => {
    if (openForm) connectHeading.current?.focus();
  }, [openForm]);

  const changed = async (text: string) => {
    setNotice({ kind: "ok", text });
    await accounts.reload();
  };

  const list = accounts.value;
  return (
    <section class="accounts">
      <h1>Accounts</h1>
      {notice && (
        <p class={notice.kind === "ok" ? "notice" : "form-errors"} role={notice.kind === "ok" ? "status" : "alert"}>
          {notice.platform ? `Connected ${labelOf(notice.platform)}. It is listed below.` : notice.text}
        </p>
      )}
      <h2>Connected accounts</h2>
      <LoadedView
        value={list}
        onRetry={accounts.reload}
        isEmpty={(data) => data.length === 0}
        empty={
          <EmptyState title="No accounts yet">
            <p>
              {canWrite
                ? "Connect a network below; then write a post for it in the composer."
                : "An editor, admin or owner of this workspace can connect accounts."}
            </p>
          </EmptyState>
        }
      >
        {(data) => (
          <ul class="item-list">
            {data.map((a) => (
              <AccountItem
                key={a.id}
                account={a}
                label={labelOf(a.platform)}
                canWrite={canWrite}
                onChanged={changed}
                onReconnectForm={(platform, handle) => setOpenForm({ platform, handle })}
              />
            ))}
          </ul>
        )}
      </LoadedView>
      {canWrite && (
        <>
          <h2 ref={connectHeading} tabIndex={-1}>
            Connect an account
          </h2>
          <p class="muted">
            Each button opens the network's consent page; you come back here when it is done. A network this server has
            no app credentials for says so.
          </p>
          <OAuthButtons />
          <div class="connect-forms">
            <MastodonForm key={openForm?.platform === "mastodon" ? "re" : "new"} />
            <BlueskyForm
              key={openForm?.platform === "bluesky" ? `re-${openForm.handle}` : "new"}
              initialHandle={openForm?.platform === "bluesky" ? openForm.handle : ""}
              onConnected={(name) => void changed(`Connected ${name} on Bluesky.`)}
            />
          </div>
        </>
      )}
    </section>
  );
}
