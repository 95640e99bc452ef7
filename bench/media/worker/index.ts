// Bench-only Worker: runs the production media code on the request body and reports the WebAssembly heaps.
// Time is measured from outside (workerd's clock does not advance during CPU work); `/upload-only` receives the same
// body and does nothing with it, so the bench can take the upload's share out.
//   /transcode?mime=…      transcodeToJpeg (bench/media)
//   /ingest?mime=…         ingestMedia with the production limits and a bucket that keeps only the last object
//                          (bench/hostile: does a hostile file answer 422 or get stored, and at what heap)
//   /fit?mime=…&spec=…     fitImage (bench/fit)
import "../../../src/polyfills";
import { bytesSource } from "../../../src/media/byte-source";
import { wasmHeapBytes } from "../../../src/media/codecs";
import { FitError, fitImage } from "../../../src/media/fit-image";
import { ingestMedia, MediaRejectedError } from "../../../src/media/ingest";
import { jpegInfo } from "../../../src/media/jpeg-meta";
import { transcodeToJpeg } from "../../../src/media/transcode";
import { codecInstantiations } from "../../../src/media/wasm-codec";

let last: Uint8Array | null = null;
const bucket = {
  async put(_key: string, value: Uint8Array) {
    last = value;
  },
} as unknown as R2Bucket;

export default {
  async fetch(request: Request, env: Record<string, string>): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    if (url.pathname === "/heap") return Response.json({ heap: wasmHeapBytes() });
    if (url.pathname === "/ingest") {
      // Streamed like an upload: the body is never buffered before the pipeline's own cap.
      try {
        const out = await ingestMedia(bucket, bytesSource(new Uint8Array(await request.arrayBuffer())), {
          filename: "bench",
          limits: {
            imageMaxBytes: 10 * 1024 * 1024, // MEDIA_IMAGE_MAX_BYTES
            videoMaxBytes: 0,
            maxPixels: Number(env.MEDIA_MAX_IMAGE_PIXELS ?? 16_000_000),
            maxFullDecodePixels: Number(env.MEDIA_MAX_FULL_DECODE_PIXELS ?? 8_000_000),
            accept: new Set(["image"]),
          },
        });
        const sof = last ? jpegInfo(last) : null;
        return Response.json({
          status: "stored",
          width: out.width,
          height: out.height,
          sof: sof && { width: sof.width, height: sof.height },
          bytes: out.size,
          heap: wasmHeapBytes(),
        });
      } catch (err) {
        if (err instanceof MediaRejectedError)
          return Response.json({ status: "422", reason: err.reason, message: err.message, heap: wasmHeapBytes() });
        // Anything else is what the API would answer 500 for: reported as such, never as wrangler's error page.
        return Response.json({ status: "500", message: String(err), heap: wasmHeapBytes() }, { status: 500 });
      }
    }
    const body = new Uint8Array(await request.arrayBuffer());
    if (url.pathname === "/upload-only") return Response.json({ bytes: body.length });
    const mime = url.searchParams.get("mime") ?? "image/png";
    if (url.pathname === "/fit") {
      let out: Awaited<ReturnType<typeof fitImage>>;
      try {
        out = await fitImage(body, mime, JSON.parse(url.searchParams.get("spec") ?? "{}"));
      } catch (err) {
        // A photo the edge cannot decode is refused as the API refuses it (422 at upload since issue 29), not a crash.
        if (err instanceof MediaRejectedError || err instanceof FitError)
          return Response.json({ status: "422", message: err.message, heap: wasmHeapBytes() }, { status: 422 });
        return Response.json({ status: "500", message: String(err), heap: wasmHeapBytes() }, { status: 500 });
      }
      return Response.json({
        bytes: out.bytes.length,
        width: out.width,
        height: out.height,
        heap: wasmHeapBytes(),
        instances: codecInstantiations(),
      });
    }
    const out = await transcodeToJpeg(mime as "image/png" | "image/webp", body);
    if (url.searchParams.get("return") === "jpeg")
      return new Response(out.bytes, { headers: { "Content-Type": "image/jpeg" } });
    return Response.json({ bytes: out.bytes.length, width: out.width, height: out.height, heap: wasmHeapBytes() });
  },
};
