import { useEffect, useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../sdk/index";
import { api, setWorkspaceId } from "../api";
import { Field, FormErrors, useFormErrors } from "../components/form";
import { ErrorState, Loading } from "../components/states";
import type { Me } from "../session";

type Lookup = Schema<"InvitationLookup">;

const inputValue = (e: Event) => (e.currentTarget as HTMLInputElement).value;

/**
 * `/app/invite#<token>`, the link an owner or admin hands over (`POST /api/invitations`): what it is for
 * (`POST /api/invitations/lookup`, the token in the body), then joining (`POST /api/invitations/accept`) — signed
 * in, with one button; signed out, with a name, email and password (a new account for the invited address, or an
 * existing one's password). An invitation naming no address only lets an existing account join (issue 35): the page
 * then asks for an email and password only. The token stays in the fragment and request bodies: it is never sent to
 * the server in a URL.
 */
export function InvitePage({ me, onJoined }: { me: Me | null; onJoined: () => void }) {
  const token = window.location.hash.slice(1);
  const [lookup, setLookup] = useState<{ state: "loading" } | { state: "error"; message: string } | Lookup>({
    state: "loading",
  });
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const { errors, formRef, fail, clear } = useFormErrors();

  useEffect(() => {
    if (!token) {
      setLookup({ state: "error", message: "This link has no invitation in it. Ask for the link again." });
      return;
    }
    void api.POST("/api/invitations/lookup", { body: { token } }).then(({ data, error }) => {
      if (data) {
        setLookup(data);
        if (data.email) setEmail(data.email);
      } else
        setLookup({
          state: "error",
          message: errorMessage(error, "This invitation could not be read. Ask for a new link."),
        });
    });
  }, [token]);

  async function join(e: Event) {
    e.preventDefault();
    if (!("workspace_name" in lookup)) return;
    setBusy(true);
    clear();
    const body = me
      ? { token }
      : { token, ...(lookup.email ? { name: name.trim() } : {}), email: email.trim(), password };
    const { data, error } = await api.POST("/api/invitations/accept", { body });
    setBusy(false);
    if (!data) return fail(error, ["name", "email", "password"], "The invitation could not be accepted. Try again.");
    // Act in the workspace just joined.
    const joined = data.memberships.find((m) => m.workspace_name === lookup.workspace_name);
    if (joined) setWorkspaceId(joined.workspace_id);
    onJoined();
  }

  return (
    <main id="main" class="sign-in">
      <h1>Join a workspace</h1>
      {"state" in lookup ? (
        lookup.state === "loading" ? (
          <Loading label="Reading the invitation…" />
        ) : (
          <ErrorState title="This invitation cannot be used" message={lookup.message} />
        )
      ) : (
        <form ref={formRef} onSubmit={join}>
          <p>
            You are invited to <strong>{lookup.workspace_name}</strong> as <strong>{lookup.role}</strong>.
          </p>
          {me ? (
            <p class="muted">
              {lookup.email && lookup.email !== me.user.email
                ? `This invitation is for ${lookup.email}, and you are signed in as ${me.user.email}: sign out and open the link again to accept it as ${lookup.email}.`
                : `You join as ${me.user.email}.`}
            </p>
          ) : (
            <>
              <p class="muted small">
                {lookup.email
                  ? "New here? Choose a name and a password. Already have an account? Your password is enough."
                  : "This link names no address, so it lets an existing account join: sign in with your email and password."}
              </p>
              {lookup.email && (
                <Field path="name" label="Your name" error={errors.fields.name}>
                  {(a) => <input {...a} autocomplete="name" value={name} onInput={(ev) => setName(inputValue(ev))} />}
                </Field>
              )}
              <Field path="email" label="Email" error={errors.fields.email}>
                {(a) => (
                  <input
                    {...a}
                    type="email"
                    autocomplete="username"
                    required
                    readOnly={!!lookup.email}
                    value={email}
                    onInput={(ev) => setEmail(inputValue(ev))}
                  />
                )}
              </Field>
              <Field path="password" label="Password" error={errors.fields.password}>
                {(a) => (
                  <input
                    {...a}
                    type="password"
                    autocomplete={lookup.email ? "new-password" : "current-password"}
                    required
                    value={password}
                    onInput={(ev) => setPassword(inputValue(ev))}
                  />
                )}
              </Field>
            </>
          )}
          <FormErrors messages={errors.general} />
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? "Joining…" : `Join ${lookup.workspace_name}`}
          </button>
        </form>
      )}
    </main>
  );
}
