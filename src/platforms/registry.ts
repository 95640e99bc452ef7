import type { Platform } from "../catalog/platforms";
import type { PlatformConnector } from "./connect";
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

/**
 * Platform → connect code (src/platforms/<name>/connect.ts, issue 18). Same pattern: each folder registers its
 * connector, so adding a network stays one folder plus one import line in index.ts.
 */
const connectors = new Map<Platform, PlatformConnector>();

export function registerConnector(connector: PlatformConnector): void {
  connectors.set(connector.platform, connector);
}

export function connectorFor(platform: string): PlatformConnector | undefined {
  return connectors.get(platform as Platform);
}

export function allConnectors(): PlatformConnector[] {
  return [...connectors.values()];
}
