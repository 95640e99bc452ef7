import { log } from "../../lib/logger";
import { createOnce, sameText } from "../checkpoint";
import { publishContainerOnce } from "../meta/containers";
import { requireToken } from "../meta/graph";
import { refreshLongLivedToken, verifyGraphToken } from "../meta/refresh";
import { registerAdapter } from "../registry";
import {
  type AdapterContext,
  type PlatformAdapter,
  PlatformError,
  type PublishRequest,
  type PublishResult,
} from "../types";
import { INSTAGRAM_LABEL, InstagramApi, type InstagramFlavour, instagramClient } from "./api";
import {
  carouselParent,
  collaboratorsOf,
  instagramMetricNames,
  instagramMetrics,
  instagramUrl,
  planInstagram,
} from "./transform";

/**
 * Instagram via Instagram Login (`instagram`) and via Facebook Login (`instagram-facebook`): one container flow
 * (create → poll `status_code` → `media_publish`), two hosts and token kinds.
 */

function igUserId(flavour: InstagramFlavour, account: PublishRequest["account"]): string {
  if (account.platformUserId) return account.platformUserId;
  // Instagram Login tokens belong to one IG account, so `me` names it; Facebook Login needs the IG business id.
  if (flavour === "instagram") return "me";
  throw new PlatformError("permanent", "The Instagram account has no Instagram business account id.");
}

function api(ctx: AdapterContext, flavour: InstagramFlavour, account: PublishRequest["account"]): InstagramApi {
  const token = requireToken(INSTAGRAM_LABEL, account.credentials.access_token);
  return new InstagramApi(ctx, instagramClient(ctx, flavour, token), igUserId(flavour, account));
}

/** Graph timestamps end in `+0000` (no colon), which not every Date parser takes: made ISO first. */
const graphTime = (t: string) => Date.parse(t.replace(/([+-]\d\d)(\d\d)$/, "$1:$2"));

const profileUrl = (username: string) => `https://www.instagram.com/${encodeURIComponent(username)}/`;

export function createInstagramAdapter(flavour: InstagramFlavour): PlatformAdapter {
  return {
    platform: flavour,

    async publish(ctx, req) {
      const ig = api(ctx, flavour, req.account);
      const plan = planInstagram(req.contentType, req.content, req.media);
      const collaborators = collaboratorsOf(req.contentType, req.meta);
      const { mediaId, creationId } = await publishContainerOnce(ctx, req, {
        create: async () => {
          if (plan.kind === "single") {
            const id = await ig.createContainer({ ...plan.container, collaborators });
            await ig.waitUntilFinished(id);
            return id;
          }
          const children: string[] = [];
          for (const child of plan.children) children.push(await ig.createContainer(child));
          for (const id of children) await ig.waitUntilFinished(id);
          const parent = await ig.createContainer({ ...carouselParent(children, plan.caption), collaborators });
          await ig.waitUntilFinished(parent);
          return parent;
        },
        fate: (id) => ig.fate(id),
        publish: (id) => ig.publish(id),
        findPublished: async (since) => {
          const wanted = req.content.trim();
          const list = await ig.recentMedia(since);
          return list.data?.find((m) => (m.caption ?? "").trim() === wanted)?.id ?? null;
        },
      });
      // The container says published but the media is not among the account's recent posts: it is live, so the
      // row is published under the container id, pointing at the profile.
      if (!mediaId) return { platformPostId: creationId, platformUrl: profileUrl(req.account.username) };
      // The post is live: a failed permalink lookup must not fail (and so retry, and duplicate) the publish.
      let platformUrl: string | null = null;
      try {
        platformUrl = instagramUrl(await ig.permalink(mediaId), req.contentType);
      } catch (err) {
        log("warn", "instagram.permalink_failed", {
          mediaId,
          reason: err instanceof Error ? err.message : String(err),
        });
      }
      return { platformPostId: mediaId, platformUrl };
    },

    /**
     * A first comment under the published media, as the account. Instagram comments have no address of their own:
     * the result's URL is the post's. No post twice: "sent at T" before the call; a retry reads the media's
     * comments (one page of 50) for one by the account, made since T, with the same text.
     */
    async comment(ctx, req): Promise<PublishResult> {
      const ig = api(ctx, flavour, req.account);
      const mediaId = req.on.platformPostId;
      const result = (id: string): PublishResult => ({ platformPostId: id, platformUrl: req.on.platformUrl });
      const ours = (c: { username?: string; from?: { id?: string; username?: string } }) =>
        c.from?.id === ig.userId || (c.from?.username ?? c.username) === req.account.username;
      return createOnce(
        ctx.now(),
        req,
        async (since) => {
          const list = await ig.comments(mediaId);
          const hit = list.data?.find(
            (c) => sameText(c.text, req.content) && ours(c) && (!c.timestamp || graphTime(c.timestamp) >= since),
          );
          return hit ? result(hit.id) : null;
        },
        async () => result(await ig.comment(mediaId, req.content)),
      );
    },

    async refresh(ctx, account) {
      if (flavour === "instagram-facebook") {
        // Facebook Login: no refresh grant; the Page-derived token does not expire. Check that it still works.
        const token = requireToken(INSTAGRAM_LABEL, account.credentials.access_token);
        return verifyGraphToken(instagramClient(ctx, flavour, token), account);
      }
      return refreshLongLivedToken(ctx, account, {
        label: INSTAGRAM_LABEL,
        host: ctx.config.INSTAGRAM_GRAPH_URL,
        grantType: "ig_refresh_token",
      });
    },

    async metrics(ctx, req) {
      const ig = api(ctx, flavour, req.account);
      const resp = await ig.insights(req.platformPostId, instagramMetricNames(req.contentType));
      return instagramMetrics(req.contentType, resp);
    },
  };
}

export const instagramAdapter = createInstagramAdapter("instagram");
export const instagramFacebookAdapter = createInstagramAdapter("instagram-facebook");
registerAdapter(instagramAdapter);
registerAdapter(instagramFacebookAdapter);
