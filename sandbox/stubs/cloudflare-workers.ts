// The sandbox runs the test fakes in Node: `cloudflare:workers` has no bindings here. The fakes read `env` only
// for media URLs of the test suite (https://media.test/…), which the sandbox never sees.
export const env = {};
