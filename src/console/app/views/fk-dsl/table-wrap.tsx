/** A table's horizontal scroller, reachable by keyboard (so a narrow screen can scroll it) and named. */
import type { ComponentChildren } from 'preact';

export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard.
    <section class="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
