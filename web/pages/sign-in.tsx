import { useState } from "preact/hooks";
import { signIn } from "../session";

/** Email and password (POST /api/session); the session cookie it sets is HttpOnly, the page never sees it. */
export function SignInPage({ notice, onSignedIn }: { notice?: string | undefined; onSignedIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const result = await signIn(email.trim(), password);
    setBusy(false);
    if (result.ok) return onSignedIn();
    setError(
      result.status === 401 || result.status === 422
        ? "That email and password do not match an account. Check them and try again."
        : result.status === 429
          ? "Too many attempts. Wait a minute, then try again."
          : result.status === 404
            ? "Signing in is not available on this server yet. Use an API key with the API (/api/docs)."
            : result.message,
    );
  }

  return (
    <main id="main" class="sign-in">
      <h1>Sign in</h1>
      <p class="muted">Edge Social Publisher — plan, write, schedule and follow your posts.</p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit} noValidate={false} aria-describedby={error ? "sign-in-error" : undefined}>
        <div class="field">
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        {error && (
          <p id="sign-in-error" class="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p class="muted small">
        No account? Ask an owner or admin of your workspace for an invitation link. Running locally?{" "}
        <code>npm run dev</code>
        prints a sign-in for the demo workspace.
      </p>
    </main>
  );
}
