import type { ComponentChildren } from "preact";
import type { Action, FetchState } from "./hooks";

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

/**
 * What a load (useFetched) shows: its failure in words with a button that tries again, "Loading
 * `what`…" until its value first arrives, then `children` of the value. The last value stays
 * shown while a reload runs, and beside the failure of a later reload. `notFound`, when given,
 * is said instead of the failure when the node answered 404 and nothing was loaded; `failure`
 * words the failure in its context.
 */
export function Fetched<T>({
  state,
  what,
  notFound,
  failure,
  children,
}: {
  state: FetchState<T>;
  what: string;
  notFound?: string;
  failure?: (message: string) => string;
  children: (data: T) => ComponentChildren;
}) {
  if (notFound !== undefined && state.errorStatus === 404 && state.data === undefined) {
    return <ErrorNote message={notFound} />;
  }
  return (
    <>
      {state.error && <ErrorNote message={failure ? failure(state.error) : state.error} retry={state.reload} />}
      {state.data === undefined && !state.error && <Loading what={what} />}
      {state.data !== undefined && children(state.data)}
    </>
  );
}

/** A card (`title`, `id`) showing a load: `Fetched` in it, then `after`. */
export function FetchedCard<T>({
  title,
  id,
  after,
  ...fetched
}: Parameters<typeof Fetched<T>>[0] & { title: string; id?: string; after?: ComponentChildren }) {
  return (
    <Card title={title} id={id}>
      <Fetched {...fetched} />
      {after}
    </Card>
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

/** A named value: its label, the value, and its name (a `data-*` value for tests and styling); false: left out. */
export type NamedValue = [label: string, value: ComponentChildren, key: string] | false;

/** Named values as a `<dl>` of `kind`s ("stat" or "fact"), each value carrying its name in `data-<kind>`. */
function NamedValues({ items, kind }: { items: NamedValue[]; kind: "stat" | "fact" }) {
  return (
    <dl class={`${kind}s`}>
      {items
        .filter((x) => x !== false)
        .map(([label, value, key]) => (
          <div class={kind} key={key}>
            <dt>{label}</dt>
            <dd {...{ [`data-${kind}`]: key }}>{value}</dd>
          </div>
        ))}
    </dl>
  );
}

/** Figures of the node (the dashboard's cards): each value carries a `data-stat` name. */
export const Stats = ({ items }: { items: NamedValue[] }) => <NamedValues items={items} kind="stat" />;

/** Facts of a thing the explorer shows, a label and a value per row: each value carries a `data-fact` name. */
export const Facts = ({ items }: { items: NamedValue[] }) => <NamedValues items={items} kind="fact" />;

/** A labelled text input of a form; `hint`, when given, is written under it and describes it. */
export function TextField({
  id,
  label,
  value,
  onValue,
  hint,
  type = "text",
  placeholder,
  spellcheck,
  required,
}: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  hint?: ComponentChildren;
  type?: "text" | "password";
  placeholder?: string;
  spellcheck?: boolean;
  required?: boolean;
}) {
  const hintId = hint === undefined ? undefined : `${id}-hint`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        // preact's typings tell input types apart by the attributes each takes; these two take the same
        type={type as "text"}
        autocomplete="off"
        spellcheck={spellcheck}
        placeholder={placeholder}
        aria-describedby={hintId}
        value={value}
        onInput={(e) => onValue((e.target as HTMLInputElement).value)}
        required={required}
      />
      {hint !== undefined && (
        <span id={hintId} class="hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/** A form's submit button, which waits (saying `busyLabel`) while its action runs, after the action's failure. */
export function Submit({ action, label, busyLabel }: { action: Action; label: string; busyLabel: string }) {
  return (
    <>
      {action.error && <ErrorNote message={action.error} />}
      <button type="submit" disabled={action.busy}>
        {action.busy ? busyLabel : label}
      </button>
    </>
  );
}

/**
 * A form whose submission starts `onSubmit` (the page stays where it is): its fields, the
 * action's failure and its submit button (`Submit`), then `after`.
 */
export function ActionForm({
  action,
  onSubmit,
  label,
  busyLabel,
  after,
  children,
}: {
  action: Action;
  onSubmit: () => void;
  label: string;
  busyLabel: string;
  after?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
      <Submit action={action} label={label} busyLabel={busyLabel} />
      {after}
    </form>
  );
}
