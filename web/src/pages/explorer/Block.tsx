import { useEffect, useState } from "preact/hooks";
import { api, type BlockJson, type BlockMetadata, type OutputJson } from "../../api";
import { Card, ErrorNote, Loading } from "../../components";
import { loadCodec } from "../../explorer/codecLoader";
import { conflictReasonWords } from "../../explorer/conflictReason";
import { hexBytes, ID_BYTES, isHex, isZeroId, outputIdOf } from "../../explorer/ids";
import { OutputRow, OutputTable } from "../../explorer/outputs";
import { EntityLink, ExplorerPage, Facts, Pager, TextOrHex, useCursorPages } from "../../explorer/parts";
import { formatNumber, formatTime } from "../../format";
import { useLoad } from "../../hooks";

/**
 * A block (TIP-24): its payload decoded (a transaction with its inputs and outputs, tagged data,
 * a milestone), its parents and children as links, and its metadata in words: solid, referenced
 * by which milestone, included in the ledger or conflicting and why (TIP-25 conflict reasons).
 * A block not yet referenced is read again every few seconds until a milestone references it.
 */

/** How often a block not yet referenced is read again. */
const UNREFERENCED_REFRESH_MS = 2_000;
/** Children per page. */
const CHILDREN_PAGE_SIZE = 25;

/** Payload types (TIP-24). */
export const PayloadKind = { TaggedData: 5, Transaction: 6, Milestone: 7 } as const;

export function payloadKindName(type: number | null | undefined): string {
  switch (type) {
    case null:
    case undefined:
      return "no payload";
    case PayloadKind.TaggedData:
      return "tagged data";
    case PayloadKind.Transaction:
      return "transaction";
    case PayloadKind.Milestone:
      return "milestone";
    default:
      return `payload of unknown type ${type}`;
  }
}

/** The inclusion state of a block in words. */
function inclusionWords(meta: BlockMetadata): string {
  if (meta.referencedByMilestoneIndex === undefined) return "not referenced by a milestone yet";
  switch (meta.ledgerInclusionState) {
    case "included":
      return "included: its transaction changed the ledger";
    case "conflicting":
      return "conflicting: its transaction was not applied";
    case "noTransaction":
      return "no transaction: nothing to apply to the ledger";
    default:
      return String(meta.ledgerInclusionState ?? "unknown");
  }
}

function MetadataCard({ meta }: { meta: BlockMetadata }) {
  return (
    <Card title="Metadata" id="block-metadata">
      <Facts
        items={[
          ["Solid", meta.isSolid ? "yes: its past cone is complete" : "not yet", "solid"],
          [
            "Referenced by",
            meta.referencedByMilestoneIndex !== undefined ? (
              <EntityLink kind="milestone" id={meta.referencedByMilestoneIndex} />
            ) : (
              "no milestone yet"
            ),
            "referenced-by",
          ],
          meta.whiteFlagIndex !== undefined && [
            "Position in the milestone (white-flag order)",
            formatNumber(meta.whiteFlagIndex),
            "white-flag-index",
          ],
          ["Ledger inclusion", inclusionWords(meta), "inclusion"],
          meta.ledgerInclusionState === "conflicting" && [
            "Conflict reason",
            <span key="c" data-conflict-reason={meta.conflictReason}>
              {conflictReasonWords(meta.conflictReason ?? 0)}
            </span>,
            "conflict-reason",
          ],
          meta.milestoneIndex !== undefined && [
            "Milestone",
            <EntityLink key="m" kind="milestone" id={meta.milestoneIndex} />,
            "milestone",
          ],
        ]}
      />
    </Card>
  );
}

interface TransactionJson {
  type: 6;
  essence: {
    networkId: string;
    inputs: { type: number; transactionId: string; transactionOutputIndex: number }[];
    inputsCommitment: string;
    outputs: OutputJson[];
    payload?: { type: 5; tag: string; data: string };
  };
  unlocks: { type: number; signature?: { publicKey: string }; reference?: number }[];
}

/** A transaction's inputs, outputs and unlocks; `transactionId` names its outputs (undefined while it is computed). */
export function TransactionBody({ tx, transactionId }: { tx: TransactionJson; transactionId: string | undefined }) {
  const { essence } = tx;
  return (
    <>
      <h3>Inputs</h3>
      <ol class="plain-list" data-inputs>
        {essence.inputs.map((input) => {
          const id = outputIdOf(input.transactionId, input.transactionOutputIndex);
          return (
            <li key={id}>
              output <EntityLink kind="output" id={id} />
            </li>
          );
        })}
      </ol>
      <h3>Outputs</h3>
      <OutputTable label="Outputs of the transaction" tableData={{ "data-outputs": true }} lead="#">
        {essence.outputs.map((o, i) => (
          <OutputRow key={i} id={transactionId && outputIdOf(transactionId, i)} output={o} lead={<td>{i}</td>} />
        ))}
      </OutputTable>
      {essence.payload && (
        <>
          <h3>Tagged data in the transaction</h3>
          <TaggedData tag={essence.payload.tag} data={essence.payload.data} />
        </>
      )}
      <h3>Unlocks</h3>
      <ol class="plain-list">
        {tx.unlocks.map((u, i) => (
          <li key={i}>
            {u.type === 0 && u.signature ? (
              <>
                Ed25519 signature by public key <code>{u.signature.publicKey}</code>
              </>
            ) : u.type === 1 ? (
              `the same unlock as input ${u.reference}`
            ) : u.type === 2 ? (
              `unlocked by the alias of input ${u.reference}`
            ) : u.type === 3 ? (
              `unlocked by the NFT of input ${u.reference}`
            ) : (
              `unlock of type ${u.type}`
            )}
          </li>
        ))}
      </ol>
    </>
  );
}

export function TaggedData({ tag, data }: { tag: string; data: string }) {
  return (
    <Facts
      items={[
        ["Tag", tag === "0x" ? <span class="muted">empty</span> : <TextOrHex hex={tag} />, "tag"],
        ["Data", data === "0x" ? <span class="muted">empty</span> : <TextOrHex hex={data} />, "data"],
      ]}
    />
  );
}

function PayloadCard({ blockId, block }: { blockId: string; block: BlockJson }) {
  const payload = block.payload;
  // the transaction ID is the hash of the payload's bytes (TIP-20): read the block's bytes and
  // hash them with the node's codec, in the page
  const txId = useLoad(
    async (signal) =>
      payload?.type === PayloadKind.Transaction
        ? (await loadCodec()).transactionIdOfBlock(await api.blockBytes(blockId, { signal }))
        : undefined,
    [blockId, payload?.type],
  );
  return (
    <Card title={`Payload: ${payloadKindName(payload?.type)}`} id="block-payload">
      {!payload && <p>This block carries no payload.</p>}
      {payload?.type === PayloadKind.TaggedData && (
        <TaggedData tag={payload.tag as string} data={payload.data as string} />
      )}
      {payload?.type === PayloadKind.Milestone && (
        <Facts
          items={[
            ["Milestone", <EntityLink key="m" kind="milestone" id={payload.index as number} />, "milestone-index"],
            ["Timestamp", formatTime(payload.timestamp as number), "milestone-timestamp"],
            [
              "Previous milestone",
              isZeroId(payload.previousMilestoneId as string) ? (
                "none: the first milestone"
              ) : (
                <EntityLink key="p" kind="milestone" id={payload.previousMilestoneId as string} />
              ),
              "previous-milestone",
            ],
            ["Signatures", formatNumber((payload.signatures as unknown[]).length), "signature-count"],
          ]}
        />
      )}
      {payload?.type === PayloadKind.Transaction && (
        <>
          <Facts
            items={[
              [
                "Transaction",
                txId.data ? <EntityLink key="t" kind="transaction" id={txId.data} /> : (txId.error ?? "computing…"),
                "transaction-id",
              ],
            ]}
          />
          <TransactionBody tx={payload as unknown as TransactionJson} transactionId={txId.data} />
        </>
      )}
    </Card>
  );
}

function Children({ blockId }: { blockId: string }) {
  const pages = useCursorPages();
  const children = useLoad(
    (signal) =>
      api.explorerBlockChildren(blockId, pages.cursor ? { cursor: pages.cursor } : { pageSize: CHILDREN_PAGE_SIZE }, {
        signal,
      }),
    [blockId, pages.cursor],
  );
  return (
    <Card title="Children" id="block-children">
      {children.error && <ErrorNote message={children.error} retry={children.reload} />}
      {!children.data && !children.error && <Loading what="the children" />}
      {children.data &&
        (children.data.children.length === 0 ? (
          <p>No block names this one as a parent yet.</p>
        ) : (
          <ul class="plain-list" data-children>
            {children.data.children.map((c) => (
              <li key={c}>
                <EntityLink kind="block" id={c} />
              </li>
            ))}
          </ul>
        ))}
      <Pager pages={pages} nextCursor={children.data?.cursor} label="children" busy={children.loading} />
    </Card>
  );
}

function BlockView({ blockId }: { blockId: string }) {
  const block = useLoad((signal) => api.block(blockId, { signal }), [blockId]);
  // read again until a milestone references the block; then it no longer changes
  const [referenced, setReferenced] = useState(false);
  const meta = useLoad(
    (signal) => api.blockMetadata(blockId, { signal }),
    [blockId],
    referenced ? undefined : UNREFERENCED_REFRESH_MS,
  );
  useEffect(() => {
    if (meta.data?.referencedByMilestoneIndex !== undefined) setReferenced(true);
  }, [meta.data]);
  const shownMeta = meta.data;
  if (block.errorStatus === 404) {
    return <ErrorNote message={`This node knows no block ${blockId} (never seen, or pruned).`} />;
  }
  if (block.error) return <ErrorNote message={block.error} retry={block.reload} />;
  if (!block.data) return <Loading what="the block" />;
  return (
    <>
      {shownMeta ? <MetadataCard meta={shownMeta} /> : <Loading what="the metadata" />}
      <PayloadCard blockId={blockId} block={block.data} />
      <Card title="Parents" id="block-parents">
        <ul class="plain-list" data-parents>
          {block.data.parents.map((p) => (
            <li key={p}>
              <EntityLink kind="block" id={p} />
            </li>
          ))}
        </ul>
      </Card>
      <Children blockId={blockId} />
      <Card title="Block" id="block-fields">
        <Facts
          items={[
            ["Protocol version", String(block.data.protocolVersion), "protocol-version"],
            ["Nonce", <code key="n">{block.data.nonce}</code>, "nonce"],
          ]}
        />
      </Card>
    </>
  );
}

/** `/dashboard/explorer/block/:blockId`. */
export function BlockPage({ blockId }: { blockId: string }) {
  const id = blockId.toLowerCase();
  const valid = isHex(id) && hexBytes(id) === ID_BYTES;
  return (
    <ExplorerPage kind="Block" id={valid ? id : undefined}>
      {valid ? (
        <BlockView key={id} blockId={id} />
      ) : (
        <ErrorNote message={`"${blockId}" is no block ID: a block ID is 0x and 64 hex digits (32 bytes).`} />
      )}
    </ExplorerPage>
  );
}
