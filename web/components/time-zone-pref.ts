import { useEffect, useState } from "preact/hooks";
import { isTimeZone } from "../lib/time";

/**
 * The person's time zone: the one they picked (kept in this browser), else the browser's own. Times are typed and
 * shown in it and sent to the API in UTC.
 */
const KEY = "esp.timezone";

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

export function preferredTimeZone(): string {
  try {
    const stored = window.localStorage.getItem(KEY);
    if (stored && isTimeZone(stored)) return stored;
  } catch {
    // storage refused: the browser's zone
  }
  return browserTimeZone();
}

const listeners = new Set<(zone: string) => void>();
let chosen: string | null = null;

export function setPreferredTimeZone(zone: string) {
  chosen = zone;
  try {
    window.localStorage.setItem(KEY, zone);
  } catch {
    // storage refused: the choice lasts for this page only
  }
  for (const l of listeners) l(zone);
}

/** The preferred zone and a setter; every component using it re-renders when it changes (calendar, lists). */
export function useTimeZone(): [string, (zone: string) => void] {
  const [zone, setZone] = useState(() => chosen ?? preferredTimeZone());
  useEffect(() => {
    listeners.add(setZone);
    return () => {
      listeners.delete(setZone);
    };
  }, []);
  return [zone, setPreferredTimeZone];
}

/** Every zone the browser knows, for a picker (the preferred one first if the list lacks it). */
export function timeZones(current: string): string[] {
  const all = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return all.includes(current) ? all : [current, ...all];
}
