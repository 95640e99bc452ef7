import { useEffect, useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../sdk/index";
import { api } from "../api";
import { EmptyState, ErrorState, Loading } from "../components/states";
import { Link } from "../router";

export default function PostsPage() {
  const [page, setPage] = useState<Schema<"PostPage"> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api.GET("/api/posts", {}).then(({ data, error }) => {
      if (data) setPage(data);
      else setError(errorMessage(error, "The posts could not be loaded."));
    });
  }, []);
  return (
    <section>
      <h1>Posts</h1>
      {error ? (
        <ErrorState message={error} />
      ) : !page ? (
        <Loading />
      ) : page.data.length === 0 ? (
        <EmptyState title="No posts yet">
          <p>
            <Link to="/compose">Write a post</Link> to see it here.
          </p>
        </EmptyState>
      ) : (
        <ul>
          {page.data.map((p) => (
            <li key={p.id}>
              <Link to={`/posts/${p.id}`}>{p.content || "(no text)"}</Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
