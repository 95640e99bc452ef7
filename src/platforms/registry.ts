import type { Platform } from "../catalog/platforms";
import type { PlatformAdapter } from "./types";

/**
 * Platform → adapter. Each platform folder (src/platforms/<name>/adapter.ts) exports its adapter and adds it
 * here; a platform without an adapter fails its rows with a clear message.
 */
const adapters = new Map<Platform, PlatformAdapter>();

export function registerAdapter(adapter: PlatformAdapter): void {
  adapters.set(adapter.platform, adapter);
}

export function adapterFor(platform: string): PlatformAdapter | undefined {
  return adapters.get(platform as Platform);
}
