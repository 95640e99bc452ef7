import { Link } from "../router";

export default function NotFoundPage() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no page at this address. Go to the <Link to="/calendar">calendar</Link> or the{" "}
        <Link to="/posts">list of posts</Link>.
      </p>
    </section>
  );
}
