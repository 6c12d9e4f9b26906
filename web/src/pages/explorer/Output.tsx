import { api, type OutputFull, type OutputWithMetadata } from "../../api";
import { Card, Facts, Fetched } from "../../components";
import { loadCodec } from "../../explorer/codecLoader";
import { isZeroId, OUTPUT_ID_BYTES, splitOutputId } from "../../explorer/ids";
import { OutputFields } from "../../explorer/outputs";
import { EntityLink, idPage } from "../../explorer/parts";
import { Verdict } from "../../explorer/proofVerdict";
import { formatNumber, formatTime } from "../../format";
import { useFetched } from "../../hooks";

/**
 * An output (TIP-18) with its place in the ledger: every field in words, the transaction that
 * created it and the one that spent it (`GET /api/core/v2/outputs/{id}` with its metadata), and
 * the proof of its ID from the core/v3 read (`GET /api/core/v3/outputs/{id}/full`), checked here
 * in the page against the output's bytes with the node's own codec (explorer/codec.ts): the
 * verdict is shown in words, with each step.
 */

/** Depth of a proof tree: the hashes a client walks up to the root. */
function depth(node: OutputFull["outputIdProof"]["outputCommitmentProof"]): number {
  return node.type === 0 ? 1 + Math.max(depth(node.l), depth(node.r)) : 0;
}

function LedgerCard({ outputId, read }: { outputId: string; read: OutputWithMetadata }) {
  const m = read.metadata;
  const { transactionId, index } = splitOutputId(outputId);
  return (
    <Card title="In the ledger" id="output-ledger">
      <Facts
        items={[
          [
            "Created by",
            isZeroId(transactionId) ? (
              "the genesis (no transaction)"
            ) : (
              <>
                transaction <EntityLink kind="transaction" id={m.transactionId} />, output {index}
              </>
            ),
            "created-by",
          ],
          !isZeroId(m.blockId) && ["Included by block", <EntityLink key="b" kind="block" id={m.blockId} />, "block"],
          [
            "Booked by",
            <>
              <EntityLink kind="milestone" id={m.milestoneIndexBooked} />, {formatTime(m.milestoneTimestampBooked)}
            </>,
            "booked",
          ],
          [
            "Spent",
            <span key="s" data-spent={String(m.isSpent)}>
              {m.isSpent && m.transactionIdSpent ? (
                <>
                  yes, by transaction <EntityLink kind="transaction" id={m.transactionIdSpent} />
                  {m.milestoneIndexSpent !== undefined && (
                    <>
                      {" "}
                      at <EntityLink kind="milestone" id={m.milestoneIndexSpent} />
                      {m.milestoneTimestampSpent !== undefined && `, ${formatTime(m.milestoneTimestampSpent)}`}
                    </>
                  )}
                </>
              ) : (
                `no: unspent as of milestone ${formatNumber(m.ledgerIndex)}`
              )}
            </span>,
            "spent",
          ],
        ]}
      />
    </Card>
  );
}

function ProofCard({ outputId, read, full }: { outputId: string; read: OutputWithMetadata; full: OutputFull }) {
  const { transactionId } = splitOutputId(outputId);
  const verdict = useFetched(
    async (signal) => {
      const [codec, outputBytes, includedBlockBytes] = await Promise.all([
        loadCodec(),
        api.outputBytes(outputId, { signal }),
        isZeroId(transactionId) ? undefined : api.includedBlockBytes(transactionId, { signal }),
      ]);
      return codec.checkOutputIdProof({
        outputId,
        outputBytes,
        outputJson: read.output,
        full,
        ...(includedBlockBytes ? { includedBlockBytes } : {}),
      });
    },
    [outputId],
  );
  const p = full.outputIdProof;
  return (
    <Card title="Proof of the output ID" id="output-proof">
      <p class="hint">
        The core/v3 read proves that this output is output {p.outputIndex} of the transaction its ID names: a Merkle
        path from the output's bytes to the root over the transaction's outputs. This page checks it itself.
      </p>
      <Facts
        items={[
          ["Booked at (slot)", <EntityLink key="s" kind="milestone" id={p.slot} />, "proof-slot"],
          ["Output index", String(p.outputIndex), "proof-output-index"],
          ["Transaction commitment", <code key="c">{p.transactionCommitment}</code>, "transaction-commitment"],
          ["Hashes on the path", String(depth(p.outputCommitmentProof)), "proof-depth"],
        ]}
      />
      <Fetched state={verdict} what="and checking the proof" failure={(m) => `The proof could not be checked: ${m}`}>
        {(v) => <Verdict verdict={v} verified="this output ID commits to these bytes" />}
      </Fetched>
    </Card>
  );
}

function OutputView({ outputId }: { outputId: string }) {
  const read = useFetched((signal) => api.output(outputId, { signal }), [outputId]);
  const full = useFetched((signal) => api.outputFull(outputId, { signal }), [outputId]);
  return (
    <Fetched
      state={read}
      what="the output"
      notFound={`This node knows no output ${outputId} (not created yet, or pruned).`}
    >
      {(r) => (
        <>
          <Card title="Output" id="output-fields">
            <OutputFields output={r.output} outputId={outputId} />
          </Card>
          <LedgerCard outputId={outputId} read={r} />
          <Fetched state={full} what="the proof" failure={(m) => `The proof could not be read: ${m}`}>
            {(f) => <ProofCard outputId={outputId} read={r} full={f} />}
          </Fetched>
        </>
      )}
    </Fetched>
  );
}

/** `/dashboard/explorer/output/:outputId`. */
export const OutputPage = idPage(
  "outputId",
  "Output",
  OUTPUT_ID_BYTES,
  (id) => <OutputView key={id} outputId={id} />,
  "a transaction ID and a 2-byte index",
);
