// The sandbox runs the test fakes in Node: `cloudflare:workers` has no bindings here. The fakes that pull media
// by URL look a `https://media.test/<key>` URL up in R2 to judge the file; the sandbox sends them the Worker's
// media URLs under that name (sandbox/networks.ts) and has no bucket, so they take the file as it is.
export const env = {
  MEDIA_BUCKET: {
    get: async () => null,
    head: async () => null,
  },
};
