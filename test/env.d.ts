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

/** Vite's `import.meta.glob` (eager, `?inline`): the limit video fixtures by path (test/media/videos.ts). */
interface ImportMeta {
  glob<T>(pattern: string, options: { query: string; import: string; eager: true }): Record<string, T>;
}
