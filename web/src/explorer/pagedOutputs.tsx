import type { ComponentChildren } from "preact";
import { api, type OutputJson } from "../api";
import { Card, ErrorNote, Loading } from "../components";
import { useLoad } from "../hooks";
import { Amount, EntityLink, mapLimit, Pager, ROW_READS, TableWrap, useCursorPages } from "./parts";

/**
 * A card with a page of an inx-indexer listing of unspent outputs (`GET /api/indexer/v1/outputs/
 * {kind}` by a filter, paged by cursor), one row per output: its link, its amount and one more
 * column of the caller's. Each row reads its output, at most `ROW_READS` at a time (a page holds
 * up to `pageSize` rows, so one page never opens more requests than that).
 */
export function PagedOutputs({
  title,
  id,
  kind,
  filter,
  pageSize,
  column,
  empty,
  pagerLabel,
  tableData,
}: {
  /** The card's title, also the name of the table's scrolling region. */
  title: string;
  /** The card's element ID. */
  id: string;
  kind: "basic" | "nft";
  /** The indexer's query parameters besides the page (`address`, `tag`). */
  filter: Record<string, string>;
  pageSize: number;
  /** The third column: its heading and its cell of an output. */
  column: { heading: string; cell: (output: OutputJson) => ComponentChildren };
  /** What the card says when the listing is empty. */
  empty: string;
  /** Names the pager's navigation ("Pages of …"). */
  pagerLabel: string;
  /** A `data-*` attribute that names the table for tests and styling. */
  tableData: Record<`data-${string}`, string | true>;
}) {
  const pages = useCursorPages();
  const listing = useLoad(
    async (signal) => {
      const page = await api.indexerOutputs(kind, { ...filter, pageSize, cursor: pages.cursor }, { signal });
      return { page, outputs: await mapLimit(page.items, ROW_READS, (o) => api.output(o, { signal })) };
    },
    [kind, JSON.stringify(filter), pageSize, pages.cursor],
  );
  return (
    <Card title={title} id={id}>
      {listing.error && <ErrorNote message={listing.error} retry={listing.reload} />}
      {!listing.data && !listing.error && <Loading what="the outputs" />}
      {listing.data &&
        (listing.data.page.items.length === 0 ? (
          <p>{empty}</p>
        ) : (
          <TableWrap label={title}>
            <table {...tableData}>
              <thead>
                <tr>
                  <th scope="col">Output</th>
                  <th scope="col">Amount</th>
                  <th scope="col">{column.heading}</th>
                </tr>
              </thead>
              <tbody>
                {listing.data.page.items.map((outputId, i) => {
                  const o = listing.data!.outputs[i]!.output;
                  return (
                    <tr key={outputId} data-output-row={outputId}>
                      <td>
                        <EntityLink kind="output" id={outputId} />
                      </td>
                      <td>
                        <Amount value={o.amount} />
                      </td>
                      <td>{column.cell(o)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        ))}
      <Pager pages={pages} nextCursor={listing.data?.page.cursor} label={pagerLabel} busy={listing.loading} />
    </Card>
  );
}
