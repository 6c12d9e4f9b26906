import type { ComponentChildren } from "preact";
import { api, type OutputJson } from "../api";
import { PagedCard } from "./paging";
import { Amount, DataTable, EntityLink, mapLimit, ROW_READS } from "./parts";

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
  return (
    <PagedCard
      title={title}
      id={id}
      pageSize={pageSize}
      load={async (ask, signal) => {
        const page = await api.indexerOutputs(kind, { ...filter, pageSize, ...ask }, { signal });
        return { ...page, outputs: await mapLimit(page.items, ROW_READS, (o) => api.output(o, { signal })) };
      }}
      deps={[kind, JSON.stringify(filter), pageSize]}
      what="the outputs"
      pagerLabel={pagerLabel}
      items={(page) => page.items}
      empty={empty}
    >
      {(outputIds, { outputs }) => (
        <DataTable label={title} headings={["Output", "Amount", column.heading]} tableData={tableData}>
          {outputIds.map((outputId, i) => {
            const o = outputs[i]!.output;
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
        </DataTable>
      )}
    </PagedCard>
  );
}
