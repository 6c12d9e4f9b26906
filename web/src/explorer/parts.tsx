import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { formatAmount, formatNumber, shortBech32, shortHex } from "../format";
import { useTitle } from "../hooks";
import { useNodeInfo } from "../nodeInfo";
import { href } from "../paths";
import { type AddressJson, AddressKind, addressKindName, addressToBech32, printableText } from "./ids";
import { type EntityKind, explorerHref } from "./links";
import { SearchForm } from "./search";

/**
 * Building blocks of the explorer's pages: links to every kind of page (each page has a real
 * URL, `/dashboard/explorer/<kind>/<id>`), IDs, addresses and amounts written the same way
 * everywhere, bytes as text when printable, lists of facts, and cursor paging.
 */

/**
 * A link to an explorer page; its text is the ID shortened (the whole ID in `title`), or
 * `children`. `data-link` and `data-id` name the target for tests and styling.
 */
export function EntityLink({
  kind,
  id,
  children,
}: {
  kind: EntityKind;
  id: string | number;
  children?: ComponentChildren;
}) {
  const text =
    children ??
    (kind === "milestone"
      ? `milestone ${formatNumber(Number(id))}`
      : kind === "address"
        ? shortBech32(String(id))
        : shortHex(String(id)));
  return (
    <a href={explorerHref(kind, id)} data-link={kind} data-id={String(id)} title={String(id)} class="mono-link">
      {text}
    </a>
  );
}

/** An address (TIP-25 JSON) as a link to its page, in bech32 with the node's HRP. */
export function AddressLink({ address }: { address: AddressJson }) {
  const hrp = useNodeInfo().data?.protocol.bech32Hrp;
  // the HRP comes with the node's info, loaded once for the whole app
  if (!hrp) return <span class="muted">…</span>;
  const bech32 = addressToBech32(address, hrp);
  if (!bech32) return <span class="muted">{addressKindName(address.type)} (unreadable)</span>;
  return (
    <>
      <EntityLink kind="address" id={bech32} />
      {address.type !== AddressKind.Ed25519 && <span class="muted"> ({addressKindName(address.type)})</span>}
    </>
  );
}

/** An amount of base units in the node's token; `data-amount` holds the base units. */
export function Amount({ value }: { value: string | number | bigint }) {
  const token = useNodeInfo().data?.baseToken;
  return <span data-amount={String(value)}>{formatAmount(value, token)}</span>;
}

/** Bytes (0x-hex) as text when they are printable UTF-8, else as hex. */
export function TextOrHex({ hex }: { hex: string }) {
  const text = printableText(hex);
  if (text === undefined) {
    return (
      <span data-bytes="hex">
        <code>{hex}</code> <span class="muted">(hex, not printable text)</span>
      </span>
    );
  }
  return (
    <span data-bytes="text" title={hex}>
      <q>{text}</q> <span class="muted">(UTF-8)</span>
    </span>
  );
}

/** A list of facts, a label and a value per row; `data-fact` names each value for tests. */
export function Facts({ items }: { items: ([label: string, value: ComponentChildren, key: string] | false)[] }) {
  return (
    <dl class="facts">
      {items
        .filter((x): x is [string, ComponentChildren, string] => x !== false)
        .map(([label, value, key]) => (
          <div class="fact" key={key}>
            <dt>{label}</dt>
            <dd data-fact={key}>{value}</dd>
          </div>
        ))}
    </dl>
  );
}

/** The top of every explorer page: a breadcrumb back to the search, the heading, the ID in full, a search box. */
export function ExplorerPage({
  kind,
  title,
  id,
  children,
}: {
  /** The page's kind in words ("Block"). */
  kind: string;
  /** The heading (default: `kind`). */
  title?: string;
  /** The ID the page shows, written out whole. */
  id?: string;
  children: ComponentChildren;
}) {
  useTitle(`${title ?? kind}${id ? ` ${shortHex(id)}` : ""}`);
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={href("/explorer")}>Explorer</a> <span aria-hidden="true">›</span> <span>{kind}</span>
      </nav>
      <div class="explorer-top">
        <h1>{title ?? kind}</h1>
        <SearchForm compact />
      </div>
      {id && (
        <p class="full-id">
          <code data-page-id>{id}</code>
        </p>
      )}
      {children}
    </>
  );
}

/** Pages of a cursor-paged listing: the cursors of the pages seen, to go forward and back. */
export interface CursorPages {
  /** The cursor of the page shown (undefined: the first). */
  cursor: string | undefined;
  /** 1 for the first page. */
  page: number;
  next: (cursor: string) => void;
  previous: () => void;
}

export function useCursorPages(): CursorPages {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  return {
    cursor: stack[stack.length - 1],
    page: stack.length,
    next: (cursor) => setStack((s) => [...s, cursor]),
    previous: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
  };
}

/** Previous and next buttons of a paged listing; `label` names the listing (each pager's navigation is named). */
export function Pager({
  pages,
  nextCursor,
  label,
  busy,
}: {
  pages: CursorPages;
  nextCursor: string | null | undefined;
  label: string;
  busy?: boolean;
}) {
  if (pages.page === 1 && !nextCursor) return null;
  return (
    <nav class="pager" aria-label={`Pages of ${label}`}>
      <button type="button" class="secondary" disabled={pages.page === 1 || busy} onClick={pages.previous}>
        Previous page
      </button>
      <span data-page={pages.page}>Page {pages.page}</span>
      {busy && <output class="loading">Loading page {pages.page}…</output>}
      <button
        type="button"
        class="secondary"
        disabled={!nextCursor || busy}
        onClick={() => nextCursor && pages.next(nextCursor)}
      >
        Next page
      </button>
    </nav>
  );
}

/** A table that scrolls sideways on a narrow screen; a region named `label` that can take focus to scroll. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
    <section class="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

/** Output reads in flight at once where a page reads one output per row. */
export const ROW_READS = 6;

/**
 * `fn` over `items`, at most `limit` at a time, results in order: the pages that read one output
 * per row (inputs, a page of an address's outputs) do not open a hundred requests at once.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
