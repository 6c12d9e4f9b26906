import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { FetchedCard } from "../components";
import { type FetchState, useFetched } from "../hooks";

/**
 * The explorer's cursor-paged listings (Chronicle's and inx-indexer's: each page's answer names
 * the cursor of the next one): the cursors seen, a card with a page of a listing, and its pager.
 */

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

/** How a listing is asked for a page: by the cursor of the one before (which carries the page size), the first by its size. */
export type PageAsk = { cursor: string } | { pageSize: number };

/** A page of a listing as the explorer shows it: the answer, its page number, the cursor of the next. */
export type ListedPage<T> = T & { page: number; cursor?: string | null };

/**
 * A cursor-paged listing: `load` reads the page `ask` names (`deps` name the listing; a change
 * starts again at the first page's cursor state as it is). The answer carries its page number, so
 * the last page stays shown, with its numbering, while the next one loads.
 */
export function usePagedFetch<T extends { cursor?: string | null }>(
  pageSize: number,
  load: (ask: PageAsk, signal: AbortSignal) => Promise<T>,
  deps: unknown[],
): { pages: CursorPages; listing: FetchState<ListedPage<T>> } {
  const pages = useCursorPages();
  const listing = useFetched(
    async (signal) => ({
      page: pages.page,
      ...(await load(pages.cursor ? { cursor: pages.cursor } : { pageSize }, signal)),
    }),
    [...deps, pages.cursor],
  );
  return { pages, listing };
}

/**
 * A card with a cursor-paged listing (usePagedFetch: `pageSize`, `load`, `deps`) and its pager
 * under it: `children` of the page's `items`, or `empty` in words when it has none.
 */
export function PagedCard<T extends { cursor?: string | null }, I>({
  title,
  id,
  pageSize,
  load,
  deps,
  what,
  pagerLabel,
  items,
  empty,
  children,
}: {
  title: string;
  id: string;
  pageSize: number;
  load: (ask: PageAsk, signal: AbortSignal) => Promise<T>;
  deps: unknown[];
  /** What is loading ("the children"). */
  what: string;
  /** Names the pager's navigation ("Pages of …"). */
  pagerLabel: string;
  items: (page: ListedPage<T>) => readonly I[];
  empty: string;
  children: (items: readonly I[], page: ListedPage<T>) => ComponentChildren;
}) {
  const { pages, listing } = usePagedFetch(pageSize, load, deps);
  return (
    <FetchedCard
      title={title}
      id={id}
      state={listing}
      what={what}
      after={<Pager pages={pages} nextCursor={listing.data?.cursor} label={pagerLabel} busy={listing.loading} />}
    >
      {(page) => (items(page).length === 0 ? <p>{empty}</p> : children(items(page), page))}
    </FetchedCard>
  );
}
