import { api } from "../../api";
import { Card, ErrorNote, Loading } from "../../components";
import { hexBytes, isHex, MAX_TAG_BYTES } from "../../explorer/ids";
import { ownerOf } from "../../explorer/outputs";
import {
  AddressLink,
  Amount,
  EntityLink,
  ExplorerPage,
  Facts,
  mapLimit,
  Pager,
  TableWrap,
  TextOrHex,
  useCursorPages,
} from "../../explorer/parts";
import { useLoad } from "../../hooks";

/**
 * The unspent outputs that carry a tag (the tag feature of TIP-18; inx-indexer's basic and NFT
 * listings by `tag`, paged). The tag is in the URL as hex, shown as text when it reads as text.
 * Tagged data payloads of blocks (TIP-23) are not indexed by the node; the event API publishes
 * them as they arrive (`blocks/tagged-data/{tag}`).
 */

const TAG_PAGE_SIZE = 20;
const ROW_READS = 6;

function Tagged({ tag, kind, title }: { tag: string; kind: "basic" | "nft"; title: string }) {
  const pages = useCursorPages();
  const listing = useLoad(
    async (signal) => {
      const page = await api.indexerOutputs(kind, { tag, pageSize: TAG_PAGE_SIZE, cursor: pages.cursor }, { signal });
      return { page, outputs: await mapLimit(page.items, ROW_READS, (id) => api.output(id, { signal })) };
    },
    [tag, kind, pages.cursor],
  );
  return (
    <Card title={title} id={`tag-${kind}`}>
      {listing.error && <ErrorNote message={listing.error} retry={listing.reload} />}
      {!listing.data && !listing.error && <Loading what="the outputs" />}
      {listing.data &&
        (listing.data.page.items.length === 0 ? (
          <p>None.</p>
        ) : (
          <TableWrap label={title}>
            <table data-tagged={kind}>
              <thead>
                <tr>
                  <th scope="col">Output</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Owner</th>
                </tr>
              </thead>
              <tbody>
                {listing.data.page.items.map((id, i) => {
                  const o = listing.data!.outputs[i]!.output;
                  const owner = ownerOf(o);
                  return (
                    <tr key={id} data-output-row={id}>
                      <td>
                        <EntityLink kind="output" id={id} />
                      </td>
                      <td>
                        <Amount value={o.amount} />
                      </td>
                      <td>{owner ? <AddressLink address={owner} /> : "—"}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        ))}
      <Pager pages={pages} nextCursor={listing.data?.page.cursor} label={title.toLowerCase()} busy={listing.loading} />
    </Card>
  );
}

/** `/dashboard/explorer/tag/:tag` (the tag's bytes as hex). */
export function TagPage({ tag }: { tag: string }) {
  const hex = tag.toLowerCase();
  const valid = isHex(hex) && hexBytes(hex) >= 1 && hexBytes(hex) <= MAX_TAG_BYTES;
  return (
    <ExplorerPage kind="Tag" id={valid ? hex : undefined}>
      {valid ? (
        <>
          <Card title="Tag" id="tag-fields">
            <Facts items={[["Tag", <TextOrHex key="t" hex={hex} />, "tag"]]} />
          </Card>
          <Tagged key={`basic:${hex}`} tag={hex} kind="basic" title="Basic outputs with this tag" />
          <Tagged key={`nft:${hex}`} tag={hex} kind="nft" title="NFT outputs with this tag" />
        </>
      ) : (
        <ErrorNote
          message={`"${tag}" is no tag: a tag is 1 to ${MAX_TAG_BYTES} bytes, written as 0x and hex digits.`}
        />
      )}
    </ExplorerPage>
  );
}
