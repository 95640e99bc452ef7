import { notFound } from "../../lib/errors";
import { SERVABLE_KEY, serveMedia } from "../../media/serve";
import { VARIANT_KEY } from "../../media/variants";
import type { App } from "../../types";

/**
 * `GET|HEAD /media/medias/<file>`: the default `{MEDIA_URL}` when no public bucket domain is configured.
 * Not under /api and not in the OpenAPI document: it serves files, not JSON.
 */
export function registerServeMedia(app: App) {
  app.on(["GET", "HEAD"], "/media/medias/:file", async (c) => {
    const key = `medias/${c.req.param("file")}`;
    if (!SERVABLE_KEY.test(key)) throw notFound();
    const res = await serveMedia(c.env.MEDIA_BUCKET, key, c.req.raw);
    if (!res) throw notFound();
    return res;
  });
  // Fitted variants (issue 16), for networks that pull media by URL: `variants/<uuid>/<spec hash>.jpg`.
  app.on(["GET", "HEAD"], "/media/variants/:dir/:file", async (c) => {
    const key = `variants/${c.req.param("dir")}/${c.req.param("file")}`;
    if (!VARIANT_KEY.test(key)) throw notFound();
    const res = await serveMedia(c.env.MEDIA_BUCKET, key, c.req.raw);
    if (!res) throw notFound();
    return res;
  });
}
