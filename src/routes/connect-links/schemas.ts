import { z } from "@hono/zod-openapi";

export const ConnectLinkId = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .openapi({ description: "The link's id: SHA-256 (hex) of its token, the only form in which the token is stored." });

export const ConnectLinkParam = z.object({
  id: ConnectLinkId.openapi({ param: { name: "id", in: "path" } }),
});

export const ConnectLinkCreatedSchema = z
  .object({
    id: ConnectLinkId,
    url: z
      .string()
      .openapi({ description: "`{PUBLIC_URL}/connect/<token>`: give it to the end user. Shown only once." }),
    purpose: z.string().nullable().openapi({ description: "Shown on the hosted pages under the workspace's name." }),
    expires_at: z.string().openapi({ description: "ISO 8601; never later than the issuing API key's own expiry." }),
  })
  .openapi("ConnectLinkCreated");

export const ConnectLinkSchema = z
  .object({
    id: ConnectLinkId,
    purpose: z.string().nullable(),
    redirect_url: z.string().nullable(),
    api_key_id: z.string().nullable().openapi({
      description:
        "The API key that created the link; null for links made by a signed-in person or before keys were recorded.",
    }),
    status: z.enum(["active", "expired", "key_ended", "person_left"]).openapi({
      description:
        "`key_ended`: the issuing API key was revoked or has expired, so the link no longer works. `person_left`: the signed-in person who made it is no longer a member of the workspace, so the link no longer works.",
    }),
    expires_at: z.string(),
    created_at: z.string(),
  })
  .openapi("ConnectLink");

export const ConnectLinkPageSchema = z
  .object({
    data: z.array(ConnectLinkSchema),
    meta: z.object({
      current_page: z.number().int(),
      per_page: z.number().int(),
      total: z.number().int(),
      last_page: z.number().int(),
    }),
  })
  .openapi("ConnectLinkPage");
