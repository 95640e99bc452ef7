/**
 * Sets `key` as the most recent entry of an insertion-ordered Map, first evicting the oldest entry when the map
 * already holds `max`. The per-isolate caches use it (key lookups, rendered posts), so none grows without bound.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value as K);
  map.set(key, value);
}
