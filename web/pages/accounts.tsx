import { EmptyState } from "../components/states";
import { Link } from "../router";

/** Placeholder: the page is routed; its content comes next (issue 27). */
export default function AccountsPage() {
  return (
    <section>
      <h1>Accounts</h1>
      <EmptyState title="This page is not ready yet">
        <p>
          Here you will connect, reconnect and disconnect the social accounts this workspace publishes to. Until then,
          the API does it all: see <a href="/api/docs">the API reference</a>, or go back to the{" "}
          <Link to="/calendar">calendar</Link>.
        </p>
      </EmptyState>
    </section>
  );
}
