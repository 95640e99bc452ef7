/** A label: its colour as an SVG fill (a presentation attribute, which the page's CSP allows; no inline style). */
export function LabelChip({ name, color }: { name: string; color: string }) {
  return (
    <span class="label-chip">
      <svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true" focusable="false">
        <circle cx="6" cy="6" r="5.5" fill={/^#[0-9a-f]{3,8}$/i.test(color) ? color : "#999"} stroke="#0003" />
      </svg>
      {name}
    </span>
  );
}
