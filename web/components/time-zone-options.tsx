import { timeZones } from "./time-zone-pref";

/** The `<option>`s of a time-zone picker: every zone the browser knows, `current` among them. */
export function TimeZoneOptions({ current }: { current: string }) {
  return (
    <>
      {timeZones(current).map((z) => (
        <option key={z} value={z}>
          {z}
        </option>
      ))}
    </>
  );
}
