import { EmptyState } from "../components/states";
import { Link } from "../router";

/** Placeholder: the page is routed; its content comes next (issue 27). */
export default function ComposePage() {
  return (
    <section>
      <h1>Compose</h1>
      <EmptyState title="This page is not ready yet">
        <p>
          Here you will write a post for several networks at once, with media, and save it as a draft, schedule it or
          publish it now. Until then, the API does it all: see <a href="/api/docs">the API reference</a>, or go back to
          the <Link to="/calendar">calendar</Link>.
        </p>
      </EmptyState>
    </section>
  );
}
