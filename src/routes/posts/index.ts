import type { App } from "../../types";
import { registerCreatePost } from "./create-post";
import { registerDeletePost } from "./delete-post";
import { registerDuplicatePost } from "./duplicate-post";
import { registerGetPost } from "./get-post";
import { registerListPosts } from "./list-posts";
import { registerPreviewPost } from "./preview-post";
import { registerUpdatePost } from "./update-post";

export function registerPosts(app: App) {
  registerListPosts(app);
  registerCreatePost(app);
  registerGetPost(app);
  registerUpdatePost(app);
  registerDeletePost(app);
  registerDuplicatePost(app);
  registerPreviewPost(app);
}
