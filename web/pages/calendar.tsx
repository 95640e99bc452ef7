import { EmptyState } from "../components/states";
import { Link } from "../router";

export default function CalendarPage() {
  return (
    <section>
      <h1>Calendar</h1>
      <EmptyState title="The calendar is on its way">
        <p>
          Meanwhile the <Link to="/posts">list of posts</Link> shows everything scheduled.
        </p>
      </EmptyState>
    </section>
  );
}
