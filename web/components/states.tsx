import type { ComponentChildren } from "preact";

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
