/**
 * The example of sdk/README.md, type-checked with the SDK (web/tsconfig.json), so the README cannot show a call the
 * API does not have.
 */
import { createClient, errorMessage, fieldErrors } from "./index";

export async function scheduleLaunchPost(apiKey: string) {
  const api = createClient({ baseUrl: "https://publisher.example.com", apiKey });

  // Connected accounts of the key's workspace.
  const { data: accounts } = await api.GET("/api/social-accounts");
  const account = accounts?.find((a) => a.platform === "bluesky");
  if (!account) throw new Error("connect a Bluesky account first");

  // A post for it, scheduled; a 422 lists every problem by field.
  const {
    data: post,
    error,
    response,
  } = await api.POST("/api/posts", {
    body: {
      content: "Launch day",
      scheduled_at: "2026-12-01T09:00:00Z",
      platforms: [{ social_account_id: account.id, content_type: "bluesky_post" }],
    },
  });
  if (error) {
    console.error(response.status, errorMessage(error), fieldErrors(error));
    return null;
  }
  // A read after a write sees it, even on a D1 read replica: the client sends back the last x-d1-bookmark.
  const { data: again } = await api.GET("/api/posts/{post}", { params: { path: { post: post.id } } });
  return again?.platforms.map((p) => `${p.platform}: ${p.status}`);
}
