import { useState } from "preact/hooks";
import { errorMessage } from "../../sdk/index";
import { api } from "../api";
import { navigate } from "../router";

/**
 * Issue 40: the one-post actions the post page and the posts list share. Each says what the API did: a duplicate
 * opens in the composer (`?duplicated=1` makes it say what came along); a delete asks first and, once the API answered
 * 204, calls `onDeleted`; a 409 (the post is being published) is said in those words.
 */
export const DELETE_REFUSED_PUBLISHING =
  "It is being published right now, so it cannot be deleted; try again once it has gone out.";

export async function duplicatePost(postId: string): Promise<string | null> {
  const { data, error } = await api.POST("/api/posts/{post}/duplicate", { params: { path: { post: postId } } });
  if (!data) return errorMessage(error, "The post could not be duplicated.");
  navigate(`/compose/${data.id}?duplicated=1`);
  return null;
}

export function DuplicateButton({
  postId,
  label = "Duplicate as a new draft",
  onError,
}: {
  postId: string;
  label?: string;
  onError: (message: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      class="button"
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        const failed = await duplicatePost(postId);
        setBusy(false);
        if (failed) onError(failed);
      }}
    >
      {label}
    </button>
  );
}

export function DeletePostControl({
  postId,
  label = "Delete post",
  onDeleted,
  onError,
}: {
  postId: string;
  label?: string;
  onDeleted: () => void;
  onError: (message: string) => void;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  async function remove() {
    setBusy(true);
    const { error, response } = await api.DELETE("/api/posts/{post}", { params: { path: { post: postId } } });
    setBusy(false);
    setAsking(false);
    if (response.status === 204) return onDeleted();
    onError(
      response.status === 409 ? DELETE_REFUSED_PUBLISHING : errorMessage(error, "The post could not be deleted."),
    );
  }
  if (!asking)
    return (
      <button type="button" class="button" disabled={busy} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <fieldset class="confirm">
      <legend>Delete this post here? It stays on any network it went out to.</legend>
      <button type="button" class="button button-danger" disabled={busy} onClick={() => void remove()}>
        Delete for good
      </button>
      <button type="button" class="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </fieldset>
  );
}
