import { media } from "../../db/schema";

/** The media columns the catalog's media rules read (src/catalog/media-rules.ts `RuleMedia`). */
export const RULE_MEDIA_COLUMNS = {
  type: media.type,
  mimeType: media.mimeType,
  size: media.size,
  width: media.width,
  height: media.height,
  durationSeconds: media.durationSeconds,
  originalFilename: media.originalFilename,
  alt: media.alt,
};
