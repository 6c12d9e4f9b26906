import type { ComponentChildren } from "preact";

/**
 * Small building blocks every page uses, so loading and failures always read the same:
 * never a blank area, always words.
 */

/** "Loading …" in an `<output>` (a polite live region, role status), so screen readers hear it too. */
export function Loading({ what }: { what: string }) {
  return <output class="loading">Loading {what}…</output>;
}

/** A failure in words; `retry` adds a button that tries again. */
export function ErrorNote({ message, retry }: { message: string; retry?: () => void }) {
  return (
    <div class="error" role="alert">
      <p>{message}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** A titled section of a page. */
export function Card({
  title,
  children,
  class: extra,
  id,
}: {
  title: string;
  children: ComponentChildren;
  class?: string;
  id?: string;
}) {
  const headingId = id ? `${id}-title` : undefined;
  return (
    <section class={`card${extra ? ` ${extra}` : ""}`} aria-labelledby={headingId} id={id}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/** A list of named values (a `<dl>`); each value carries a `data-stat` name for tests and styling. */
export function Stats({ items }: { items: [label: string, value: ComponentChildren, key: string][] }) {
  return (
    <dl class="stats">
      {items.map(([label, value, key]) => (
        <div class="stat" key={key}>
          <dt>{label}</dt>
          <dd data-stat={key}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
