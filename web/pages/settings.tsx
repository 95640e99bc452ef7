import { EmptyState } from "../components/states";
import { Link } from "../router";

/** Placeholder: the page is routed; its content comes next (issue 27). */
export default function SettingsPage() {
  return (
    <section>
      <h1>Settings</h1>
      <EmptyState title="This page is not ready yet">
        <p>
          Here you will manage API keys, labels, signatures, webhooks and members. Until then, the API does it all: see{" "}
          <a href="/api/docs">the API reference</a>, or go back to the <Link to="/calendar">calendar</Link>.
        </p>
      </EmptyState>
    </section>
  );
}
