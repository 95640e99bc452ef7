import { useEffect, useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../sdk/index";
import { api } from "../api";
import { ErrorState, Loading } from "../components/states";
import type { PageProps } from "../routes";

export default function PostDetailPage({ params }: PageProps) {
  const [post, setPost] = useState<Schema<"Post"> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api.GET("/api/posts/{post}", { params: { path: { post: params.id ?? "" } } }).then(({ data, error }) => {
      if (data) setPost(data);
      else setError(errorMessage(error, "The post could not be loaded."));
    });
  }, [params.id]);
  if (error) return <ErrorState message={error} />;
  if (!post) return <Loading />;
  return (
    <section>
      <h1>Post</h1>
      <p>{post.content}</p>
    </section>
  );
}
