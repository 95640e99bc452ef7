declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
}

/** Vite's `?inline` import of a binary fixture: a `data:` URL holding the file in base64 (test/media/videos.ts). */
declare module "*?inline" {
  const dataUrl: string;
  export default dataUrl;
}
