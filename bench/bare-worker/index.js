// The floor: a Worker that returns a constant response, run by the same wrangler dev in the same session.
// `/d1` adds exactly one D1 round trip (`SELECT 1`): the floor of any route that reads D1 at all.
export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname === "/d1") {
      const row = await env.DB.prepare("SELECT 1 AS one").first();
      return new Response(JSON.stringify({ status: "ok", one: row.one }), {
        headers: { "Content-Type": "application/json" },
      });
    }
    return new Response('{"status":"ok"}', { headers: { "Content-Type": "application/json" } });
  },
};
