import { platformSpec } from "../../src/catalog/platforms";

/** Short marks for each network (no third-party logos or fonts: a letter mark in the network's colour class). */
const MARKS: Record<string, string> = {
  linkedin: "in",
  "linkedin-page": "in",
  x: "X",
  tiktok: "TT",
  youtube: "YT",
  facebook: "f",
  instagram: "IG",
  "instagram-facebook": "IG",
  threads: "@",
  pinterest: "P",
  bluesky: "B",
  mastodon: "M",
};

/** The network's name from the shared catalog (src/catalog/platforms.ts), the same the API's content types show. */
export function networkName(platform: string): string {
  try {
    return platformSpec(platform).label;
  } catch {
    return platform;
  }
}

/** A network's mark; its name is read out (or shown beside it with `withName`). */
export function NetworkIcon({ platform, withName = false }: { platform: string; withName?: boolean }) {
  const name = networkName(platform);
  return (
    <span class="network">
      <span class={`network-mark net-${platform}`} aria-hidden="true">
        {MARKS[platform] ?? platform.slice(0, 2)}
      </span>
      {withName ? <span>{name}</span> : <span class="visually-hidden">{name}</span>}
    </span>
  );
}
