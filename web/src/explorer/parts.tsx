import type { ComponentChildren } from "preact";
import { AddressType } from "../../../src/codec/types";
import { ErrorNote } from "../components";
import { formatAmount, formatNumber, shortBech32, shortHex } from "../format";
import { useTitle } from "../hooks";
import { addressKindName } from "../kindNames";
import { useNodeInfo } from "../nodeInfo";
import { href } from "../paths";
import { type AddressJson, addressToBech32, hexBytes, isHex, printableText } from "./ids";
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

/** Links to explorer pages of one kind as a plain list; `listData` attributes name it for tests and styling. */
export function EntityList({
  kind,
  ids,
  listData,
}: {
  kind: EntityKind;
  ids: readonly (string | number)[];
  listData: Record<`data-${string}`, string | true>;
}) {
  return (
    <ul class="plain-list" {...listData}>
      {ids.map((id) => (
        <li key={id}>
          <EntityLink kind={kind} id={id} />
        </li>
      ))}
    </ul>
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
      {address.type !== AddressType.Ed25519 && <span class="muted"> ({addressKindName(address.type)})</span>}
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

/**
 * The page of a thing named in its URL by a hex ID of `bytes` bytes (any case): `children` of the
 * ID in lower case when it is one, else what such an ID is, in words (`detail`: what its bytes
 * hold, by default how many they are).
 */
export function IdPage({
  kind,
  raw,
  bytes,
  detail = `${bytes} bytes`,
  children,
}: {
  /** The page's kind in words ("Block", "NFT"). */
  kind: string;
  /** The ID as the URL has it. */
  raw: string;
  bytes: number;
  detail?: string;
  children: (id: string) => ComponentChildren;
}) {
  const id = raw.toLowerCase();
  const valid = isHex(id) && hexBytes(id) === bytes;
  // "block", but "NFT"; "an" before a vowel's sound
  const noun = kind === kind.toUpperCase() ? kind : kind.toLowerCase();
  const article = /^[aeiouAEIOUN]/.test(noun) ? "an" : "a";
  const invalid = `"${raw}" is no ${noun} ID: ${article} ${noun} ID is 0x and ${bytes * 2} hex digits (${detail}).`;
  return (
    <ExplorerPage kind={kind} id={valid ? id : undefined}>
      {valid ? children(id) : <ErrorNote message={invalid} />}
    </ExplorerPage>
  );
}

/** The page component of an `IdPage` whose ID is the route parameter `param`. */
export function idPage<P extends string>(
  param: P,
  kind: string,
  bytes: number,
  view: (id: string) => ComponentChildren,
  detail?: string,
) {
  return (props: Record<P, string>) => (
    <IdPage kind={kind} raw={props[param]} bytes={bytes} {...(detail === undefined ? {} : { detail })}>
      {view}
    </IdPage>
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

/**
 * A table that scrolls sideways (TableWrap, named `label`): its column headings (false: a column
 * left out), `tableData` attributes that name it for tests and styling, and its rows.
 */
export function DataTable({
  label,
  headings,
  tableData,
  children,
}: {
  label: string;
  headings: (string | false | undefined)[];
  tableData: Record<`data-${string}`, string | number | true>;
  children: ComponentChildren;
}) {
  return (
    <TableWrap label={label}>
      <table {...tableData}>
        <thead>
          <tr>
            {headings
              .filter((h): h is string => typeof h === "string" && h !== "")
              .map((h) => (
                <th scope="col" key={h}>
                  {h}
                </th>
              ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableWrap>
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
