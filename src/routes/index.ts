import type { App } from "../types";
import { adminGate, registerCreateWorkspace } from "./admin/create-workspace";
import { registerDeadLetters } from "./admin/dead-letters";
import { registerApiKeys } from "./api-keys/api-keys";
import { registerHostedConnect } from "./connect/hosted-connect";
import { registerCreateConnectLink } from "./connect-links/create-connect-link";
import { registerDeleteConnectLink } from "./connect-links/delete-connect-link";
import { registerListConnectLinks } from "./connect-links/list-connect-links";
import { registerListContentTypes } from "./content-types/list-content-types";
import { registerHealth } from "./health/health";
import { registerLabels } from "./labels/labels";
import { registerMcp } from "./mcp";
import { registerAttachMediaFromUrl } from "./media/attach-media-from-url";
import { registerServeMedia } from "./media/serve-media";
import { registerUpdateMedia } from "./media/update-media";
import { registerUploadPostMedia } from "./media/upload-post-media";
import { registerGetPostMetrics } from "./metrics/get-post-metrics";
import { registerOAuthCallback } from "./oauth/oauth-callback";
import { registerPeople } from "./people";
import { registerPosts } from "./posts";
import { registerQueues } from "./queues";
import { registerSignatures } from "./signatures/signatures";
import { registerSocialAccounts } from "./social-accounts/social-accounts";
import { registerStartConnect } from "./social-accounts/start-connect";
import { registerIssueUpload } from "./uploads/issue-upload";
import { registerSignedUpload } from "./uploads/signed-upload";
import { registerWebhooks } from "./webhooks";
import { registerGetWorkspace } from "./workspace/get-workspace";

/** Every REST operation, in registration order. Each area adds its registrar here. */
export const registrars: ((app: App) => unknown)[] = [
  registerHealth,
  adminGate,
  registerCreateWorkspace,
  registerDeadLetters,
  registerGetWorkspace,
  registerPeople,
  registerApiKeys,
  registerLabels,
  registerSignatures,
  registerListContentTypes,
  registerStartConnect,
  registerSocialAccounts,
  registerCreateConnectLink,
  registerListConnectLinks,
  registerDeleteConnectLink,
  registerOAuthCallback,
  registerHostedConnect,
  registerMcp,
  registerPosts,
  registerGetPostMetrics,
  registerUploadPostMedia,
  registerAttachMediaFromUrl,
  registerUpdateMedia,
  registerIssueUpload,
  registerSignedUpload,
  registerServeMedia,
  registerWebhooks,
  registerQueues,
];
