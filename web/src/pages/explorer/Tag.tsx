import { Card, ErrorNote, Facts } from "../../components";
import { hexBytes, isHex, MAX_TAG_BYTES } from "../../explorer/ids";
import { ownerOf } from "../../explorer/outputs";
import { PagedOutputs } from "../../explorer/pagedOutputs";
import { AddressLink, ExplorerPage, TextOrHex } from "../../explorer/parts";

/**
 * The unspent outputs that carry a tag (the tag feature of TIP-18; inx-indexer's basic and NFT
 * listings by `tag`, paged). The tag is in the URL as hex, shown as text when it reads as text.
 * Tagged data payloads of blocks (TIP-23) are not indexed by the node; the event API publishes
 * them as they arrive (`blocks/tagged-data/{tag}`).
 */

const TAG_PAGE_SIZE = 20;

function Tagged({ tag, kind, title }: { tag: string; kind: "basic" | "nft"; title: string }) {
  return (
    <PagedOutputs
      title={title}
      id={`tag-${kind}`}
      kind={kind}
      filter={{ tag }}
      pageSize={TAG_PAGE_SIZE}
      column={{
        heading: "Owner",
        cell: (o) => {
          const owner = ownerOf(o);
          return owner ? <AddressLink address={owner} /> : "—";
        },
      }}
      empty="None."
      pagerLabel={title.toLowerCase()}
      tableData={{ "data-tagged": kind }}
    />
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
