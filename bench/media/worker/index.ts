// Bench-only Worker: runs the production transcoder (src/media/transcode.ts) on the PNG in the request body and
// reports the WebAssembly heaps. Time is measured from outside (workerd's clock does not advance during CPU work);
// `/upload-only` receives the same body and does nothing with it, so the bench can take the upload's share out.
import "../../../src/polyfills";
import { wasmHeapBytes } from "../../../src/media/codecs";
import { transcodeToJpeg } from "../../../src/media/transcode";

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    const body = new Uint8Array(await request.arrayBuffer());
    // The same upload without the transcode: the benchmark subtracts this to get the transcode's own time.
    if (url.pathname === "/upload-only") return Response.json({ bytes: body.length });
    const mime = (url.searchParams.get("mime") ?? "image/png") as "image/png" | "image/webp";
    const out = await transcodeToJpeg(mime, body);
    if (url.searchParams.get("return") === "jpeg")
      return new Response(out.bytes, { headers: { "Content-Type": "image/jpeg" } });
    return Response.json({ bytes: out.bytes.length, width: out.width, height: out.height, heap: wasmHeapBytes() });
  },
};
