import { useEffect, useMemo, useState } from "preact/hooks";
import { PayloadType } from "../../../../src/codec/types";
import {
  api,
  type BlockJson,
  type BlockMetadata,
  type InclusionProofJson,
  type OutputJson,
  type PoiProofNodeJson,
} from "../../api";
import { Card, Facts, Fetched, Loading } from "../../components";
import { loadCodec } from "../../explorer/codecLoader";
import { conflictReasonWords } from "../../explorer/conflictReason";
import { ID_BYTES, isZeroId, outputIdOf } from "../../explorer/ids";
import { OutputRow, OutputTable } from "../../explorer/outputs";
import { PagedCard } from "../../explorer/paging";
import { EntityLink, EntityList, idPage, TextOrHex } from "../../explorer/parts";
import { Verdict } from "../../explorer/proofVerdict";
import { formatNumber, formatTime } from "../../format";
import { useFetched } from "../../hooks";
import { payloadKindName } from "../../kindNames";

/**
 * A block (TIP-24): its payload decoded (a transaction with its inputs and outputs, tagged data,
 * a milestone), its parents and children as links, and its metadata in words: solid, referenced
 * by which milestone, included in the ledger or conflicting and why (TIP-25 conflict reasons).
 * A block not yet referenced is read again every few seconds until a milestone references it;
 * once referenced, its proof of inclusion (inx-poi's `GET /api/poi/v1/create/{blockId}`) is
 * offered as a JSON file and checked in the page (explorer/codec.ts `checkInclusionProof`).
 */

/** How often a block not yet referenced is read again. */
const UNREFERENCED_REFRESH_MS = 2_000;
/** Children per page. */
const CHILDREN_PAGE_SIZE = 25;

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
  const txId = useFetched(
    async (signal) =>
      payload?.type === PayloadType.Transaction
        ? (await loadCodec()).transactionIdOfBlock(await api.blockBytes(blockId, { signal }))
        : undefined,
    [blockId, payload?.type],
  );
  return (
    <Card title={`Payload: ${payloadKindName(payload?.type)}`} id="block-payload">
      {!payload && <p>This block carries no payload.</p>}
      {payload?.type === PayloadType.TaggedData && (
        <TaggedData tag={payload.tag as string} data={payload.data as string} />
      )}
      {payload?.type === PayloadType.Milestone && (
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
      {payload?.type === PayloadType.Transaction && (
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

/** Hashes on a proof's path (its depth): the hashes a client walks up to the root. */
function pathLength(node: PoiProofNodeJson): number {
  return "l" in node ? 1 + Math.max(pathLength(node.l), pathLength(node.r)) : 0;
}

/** The proof as a JSON file to save: a `blob:` URL, released when the card goes. */
function useDownload(proof: InclusionProofJson): string {
  const url = useMemo(
    () => URL.createObjectURL(new Blob([`${JSON.stringify(proof, null, 2)}\n`], { type: "application/json" })),
    [proof],
  );
  useEffect(() => () => URL.revokeObjectURL(url), [url]);
  return url;
}

function InclusionProofBody({ blockId, proof }: { blockId: string; proof: InclusionProofJson }) {
  const download = useDownload(proof);
  const verdict = useFetched(
    async (signal) => {
      const [codec, milestone, node] = await Promise.all([
        loadCodec(),
        api.milestoneByIndex(proof.milestone.index, { signal }),
        api.poiValidate(proof),
      ]);
      return codec.checkInclusionProof({ blockId, proof, milestone, nodeSaysValid: node.valid });
    },
    [blockId, proof],
  );
  return (
    <>
      <Facts
        items={[
          ["Milestone", <EntityLink key="m" kind="milestone" id={proof.milestone.index} />, "proof-milestone"],
          ["Inclusion Merkle root", <code key="r">{proof.milestone.inclusionMerkleRoot}</code>, "proof-root"],
          ["Hashes on the path", String(pathLength(proof.proof)), "proof-depth"],
        ]}
      />
      <p>
        <a href={download} download={`proof-of-inclusion-${blockId}.json`} data-proof-download>
          Download the proof (JSON)
        </a>
      </p>
      <Fetched state={verdict} what="and checking the proof" failure={(m) => `The proof could not be checked: ${m}`}>
        {(v) => <Verdict verdict={v} verified="a milestone of this network referenced this block" />}
      </Fetched>
    </>
  );
}

function InclusionProofCard({ blockId }: { blockId: string }) {
  const proof = useFetched((signal) => api.poiCreate(blockId, { signal }), [blockId]);
  return (
    <Card title="Proof of inclusion" id="block-proof">
      <p class="hint">
        A proof that stands alone: this block, the milestone that referenced it and the Merkle path from the block's ID
        to the milestone's inclusion Merkle root, which anyone can check against the coordinator's public keys (the
        format of inx-poi, POST /api/poi/v1/validate on any node of the network).
      </p>
      <Fetched state={proof} what="the proof" failure={(m) => `The proof could not be read: ${m}`}>
        {(p) => <InclusionProofBody blockId={blockId} proof={p} />}
      </Fetched>
    </Card>
  );
}

function Children({ blockId }: { blockId: string }) {
  return (
    <PagedCard
      title="Children"
      id="block-children"
      pageSize={CHILDREN_PAGE_SIZE}
      load={(ask, signal) => api.explorerBlockChildren(blockId, ask, { signal })}
      deps={[blockId]}
      what="the children"
      pagerLabel="children"
      items={(page) => page.children}
      empty="No block names this one as a parent yet."
    >
      {(children) => <EntityList kind="block" ids={children} listData={{ "data-children": true }} />}
    </PagedCard>
  );
}

function BlockView({ blockId }: { blockId: string }) {
  const block = useFetched((signal) => api.block(blockId, { signal }), [blockId]);
  // read again until a milestone references the block; then it no longer changes
  const [referenced, setReferenced] = useState(false);
  const meta = useFetched(
    (signal) => api.blockMetadata(blockId, { signal }),
    [blockId],
    referenced ? undefined : UNREFERENCED_REFRESH_MS,
  );
  useEffect(() => {
    if (meta.data?.referencedByMilestoneIndex !== undefined) setReferenced(true);
  }, [meta.data]);
  return (
    <Fetched state={block} what="the block" notFound={`This node knows no block ${blockId} (never seen, or pruned).`}>
      {(b) => (
        <>
          {meta.data ? <MetadataCard meta={meta.data} /> : <Loading what="the metadata" />}
          <PayloadCard blockId={blockId} block={b} />
          {meta.data?.referencedByMilestoneIndex !== undefined && <InclusionProofCard blockId={blockId} />}
          <Card title="Parents" id="block-parents">
            <EntityList kind="block" ids={b.parents} listData={{ "data-parents": true }} />
          </Card>
          <Children blockId={blockId} />
          <Card title="Block" id="block-fields">
            <Facts
              items={[
                ["Protocol version", String(b.protocolVersion), "protocol-version"],
                ["Nonce", <code key="n">{b.nonce}</code>, "nonce"],
              ]}
            />
          </Card>
        </>
      )}
    </Fetched>
  );
}

/** `/dashboard/explorer/block/:blockId`. */
export const BlockPage = idPage("blockId", "Block", ID_BYTES, (id) => <BlockView key={id} blockId={id} />);
