/** LinkedIn versioned REST ("Community Management") shapes (platforms.md §1–2). */

/** `POST /rest/images?action=initializeUpload` → value. */
export interface LiImageUploadInit {
  value: { uploadUrlExpiresAt?: number; uploadUrl: string; image: string };
}

export interface LiUploadInstruction {
  uploadUrl: string;
  firstByte: number;
  lastByte: number;
}

/** `POST /rest/videos?action=initializeUpload` → value (parts of 4 MiB). */
export interface LiVideoUploadInit {
  value: {
    video: string;
    uploadToken?: string;
    uploadUrlsExpireAt?: number;
    uploadInstructions: LiUploadInstruction[];
  };
}

export type LiAssetStatus = "WAITING_UPLOAD" | "PROCESSING" | "AVAILABLE" | "PROCESSING_FAILED";

/** `GET /rest/videos/{urn}`. */
export interface LiVideo {
  id?: string;
  status?: LiAssetStatus;
  processingFailureReason?: string;
}

/** Error body: `{status, serviceErrorCode, code, message}`. */
export interface LiErrorBody {
  status?: number;
  serviceErrorCode?: number;
  code?: string;
  message?: string;
  /** 422 validation details, e.g. `{inputErrors: [{code: "DUPLICATE_POST", description: "Duplicate post is detected"}]}`. */
  errorDetails?: { inputErrors?: Array<{ code?: string; description?: string }> };
}

/** `organizationalEntityShareStatistics` element. */
export interface LiShareStatistics {
  elements?: Array<{
    organizationalEntity?: string;
    share?: string;
    ugcPost?: string;
    totalShareStatistics?: {
      impressionCount?: number;
      uniqueImpressionsCount?: number;
      clickCount?: number;
      likeCount?: number;
      commentCount?: number;
      shareCount?: number;
      engagement?: number;
    };
  }>;
}

/** `POST {oauth}/oauth/v2/accessToken` (refresh_token grant). */
export interface LiTokenResponse {
  access_token?: string;
  expires_in?: number;
  refresh_token?: string;
  refresh_token_expires_in?: number;
  scope?: string;
  /** OAuth error form: `{"error":"invalid_grant","error_description":"…"}` */
  error?: string;
  error_description?: string;
  message?: string;
}

/** A comment as the Comments API answers it (`POST` / `GET /rest/socialActions/{urn}/comments`). */
export interface LiComment {
  id?: string;
  $URN?: string;
  actor?: string;
  object?: string;
  message?: { text?: string };
  created?: { actor?: string; time?: number };
}

export interface LiCommentList {
  elements?: LiComment[];
}
