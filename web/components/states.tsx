import type { ComponentChildren } from "preact";
import type { Loaded } from "./use-api";

/** Something is on its way: announced politely to screen readers. */
export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p class="state state-loading" role="status">
      {label}
    </p>
  );
}

/** A failure, what it means, and the way out (a retry button when one helps). */
export function ErrorState({
  title = "This could not be loaded",
  message,
  onRetry,
  children,
}: {
  title?: string;
  message: string;
  onRetry?: () => void;
  children?: ComponentChildren;
}) {
  return (
    <div class="state state-error" role="alert">
      <p class="state-title">{title}</p>
      <p>{message}</p>
      {children}
      {onRetry && (
        <button type="button" class="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Nothing here yet, and what to do about it. */
export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="state state-empty">
      <p class="state-title">{title}</p>
      {children}
    </div>
  );
}

/**
 * What a GET (`useApi`) shows in each of its states: loading, its error with a retry, `empty` when `isEmpty` says
 * there is nothing, else `children` with the data. One place renders the three states alike on every page.
 */
export function LoadedView<T>({
  value,
  onRetry,
  isEmpty,
  empty,
  children,
}: {
  value: Loaded<T>;
  onRetry: () => void;
  isEmpty?: (data: T) => boolean;
  empty?: ComponentChildren;
  children: (data: T) => ComponentChildren;
}) {
  if (value.state === "loading") return <Loading />;
  if (value.state === "error") return <ErrorState message={value.message} onRetry={onRetry} />;
  if (isEmpty?.(value.data)) return <>{empty}</>;
  return <>{children(value.data)}</>;
}
