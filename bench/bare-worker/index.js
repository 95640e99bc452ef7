// The floor: a Worker that returns a constant response, run by the same wrangler dev in the same session.
// `/d1` adds exactly one D1 round trip (`SELECT 1`): the floor of any route that reads D1 at all.
// `/sized?bytes=N` returns a constant JSON body of N bytes: the floor of any route whose answer is that large.
const sized = new Map();

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/d1") {
      const row = await env.DB.prepare("SELECT 1 AS one").first();
      return new Response(JSON.stringify({ status: "ok", one: row.one }), {
        headers: { "Content-Type": "application/json" },
      });
    }
    if (url.pathname === "/sized") {
      const bytes = Math.min(10_000_000, Number(url.searchParams.get("bytes")) || 0);
      if (!sized.has(bytes)) sized.set(bytes, `{"data":"${"x".repeat(Math.max(0, bytes - 11))}"}`);
      return new Response(sized.get(bytes), { headers: { "Content-Type": "application/json" } });
    }
    return new Response('{"status":"ok"}', { headers: { "Content-Type": "application/json" } });
  },
};
