// Bench-only Worker: the production multipart reader draining the `media` part without storing it, to tell the
// Worker's own memory apart from local R2's (miniflare's R2 runs in the same workerd process).
import { MultipartReader } from "../../../src/media/multipart";

export default {
  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === "/health") return new Response("ok");
    const form = MultipartReader.fromRequest(request);
    let bytes = 0;
    for (let part = await form!.nextPart(); part; part = await form!.nextPart())
      for (let c = await form!.readBody(); c; c = await form!.readBody()) bytes += c.length;
    return Response.json({ bytes });
  },
};
