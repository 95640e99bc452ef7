// The floor: a Worker that returns a constant response, run by the same wrangler dev in the same session.
export default {
  fetch() {
    return new Response('{"status":"ok"}', { headers: { "Content-Type": "application/json" } });
  },
};
