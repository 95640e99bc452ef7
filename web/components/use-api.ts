import { useCallback, useEffect, useState } from "preact/hooks";
import { errorMessage } from "../../sdk/index";

export type Loaded<T> =
  | { state: "loading" }
  | { state: "error"; message: string; status: number }
  | { state: "ready"; data: T };

/**
 * One GET through the SDK, with its loading and error states and a `reload()`. `load` returns the SDK's
 * `{ data, error, response }`.
 */
export function useApi<T>(
  load: () => Promise<{ data?: T | undefined; error?: unknown; response: Response }>,
  deps: readonly unknown[] = [],
  fallback = "This could not be loaded.",
) {
  const [value, setValue] = useState<Loaded<T>>({ state: "loading" });
  const reload = useCallback(async () => {
    try {
      const { data, error, response } = await load();
      if (data !== undefined && response.ok) setValue({ state: "ready", data });
      else setValue({ state: "error", message: errorMessage(error, fallback), status: response.status });
    } catch {
      setValue({ state: "error", message: "The server could not be reached. Check your connection.", status: 0 });
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { value, reload, setValue };
}
