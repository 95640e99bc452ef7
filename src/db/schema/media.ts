import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces";

export const media = sqliteTable(
  "media",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** R2 key, `medias/<uuid>.<ext>`. */
    path: text("path").notNull(),
    /** image | video */
    type: text("type").$type<"image" | "video">().notNull(),
    mimeType: text("mime_type").notNull(),
    originalFilename: text("original_filename").notNull().default(""),
    size: integer("size"),
    width: integer("width"),
    height: integer("height"),
    /** Videos: read from the MP4/MOV container at upload (src/media/mp4-info.ts); null for images. */
    durationSeconds: real("duration_seconds"),
    /** Issue 29: the image's (or video's) description for people who cannot see it; sent where the network takes one. */
    alt: text("alt"),
    /** Set on workspace assets created by a signed-URL upload. */
    uploadToken: text("upload_token"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("media_workspace_idx").on(t.workspaceId),
    index("media_path_idx").on(t.path),
    // Migration 0024: the lifecycle sweep's signed-upload assets, oldest first.
    index("media_upload_assets_idx").on(t.createdAt).where(sql`${t.uploadToken} IS NOT NULL`),
    uniqueIndex("media_upload_token_unique").on(t.uploadToken),
  ],
);
