import { api, type BlockMetadata, type OutputJson } from "../../api";
import { Card, Facts, Fetched, FetchedCard } from "../../components";
import { conflictReasonWords } from "../../explorer/conflictReason";
import { ID_BYTES, outputIdOf } from "../../explorer/ids";
import { OutputRow, OutputTable } from "../../explorer/outputs";
import { EntityLink, idPage, mapLimit, ROW_READS } from "../../explorer/parts";
import { type FetchState, useFetched } from "../../hooks";
import { TaggedData } from "./Block";

/**
 * A transaction (TIP-20) as the ledger has it: the block that included it
 * (`GET /api/core/v2/transactions/{id}/included-block` and its metadata), its inputs as the
 * outputs they spent (each read, for its amount and owner), and its outputs with whether each
 * is spent yet. The node knows a transaction once a milestone included it.
 */

interface Essence {
  inputs: { transactionId: string; transactionOutputIndex: number }[];
  outputs: OutputJson[];
  payload?: { type: 5; tag: string; data: string };
}

function Inputs({ essence }: { essence: Essence }) {
  const ids = essence.inputs.map((i) => outputIdOf(i.transactionId, i.transactionOutputIndex));
  const spent = useFetched(
    (signal) => mapLimit(ids, ROW_READS, (id) => api.output(id, { signal }).catch(() => undefined)),
    [ids.join()],
  );
  return (
    <Card title={`Inputs (${ids.length})`} id="transaction-inputs">
      <p class="hint">The outputs this transaction spent.</p>
      <OutputTable label="Inputs" tableData={{ "data-inputs": true }}>
        {ids.map((id, i) => (
          <OutputRow key={id} id={id} output={spent.data?.[i]?.output} />
        ))}
      </OutputTable>
    </Card>
  );
}

function Outputs({ transactionId, essence }: { transactionId: string; essence: Essence }) {
  const ids = essence.outputs.map((_, i) => outputIdOf(transactionId, i));
  const metadata = useFetched(
    (signal) => mapLimit(ids, ROW_READS, (id) => api.outputMetadata(id, { signal }).catch(() => undefined)),
    [transactionId],
  );
  return (
    <Card title={`Outputs (${ids.length})`} id="transaction-outputs">
      <OutputTable label="Outputs" tableData={{ "data-outputs": true }} extra="Spent">
        {ids.map((id, i) => {
          const m = metadata.data?.[i];
          return (
            <OutputRow
              key={id}
              id={id}
              output={essence.outputs[i]}
              extra={
                <td data-spent={m ? String(m.isSpent) : undefined}>
                  {!m ? (
                    "…"
                  ) : m.isSpent && m.transactionIdSpent ? (
                    <>
                      yes, by <EntityLink kind="transaction" id={m.transactionIdSpent} />
                    </>
                  ) : (
                    "no"
                  )}
                </td>
              }
            />
          );
        })}
      </OutputTable>
    </Card>
  );
}

function TransactionView({ transactionId }: { transactionId: string }) {
  const block = useFetched((signal) => api.includedBlock(transactionId, { signal }), [transactionId]);
  const meta = useFetched((signal) => api.includedBlockMetadata(transactionId, { signal }), [transactionId]);
  return (
    <Fetched
      state={block}
      what="the transaction"
      notFound={`No transaction ${transactionId} is in the ledger of this node: it is known once a milestone includes it (a conflicting one never is), and forgotten when pruned.`}
    >
      {(b) => (
        <TransactionCards
          transactionId={transactionId}
          essence={(b.payload as unknown as { essence: Essence }).essence}
          meta={meta}
        />
      )}
    </Fetched>
  );
}

function TransactionCards({
  transactionId,
  essence,
  meta,
}: {
  transactionId: string;
  essence: Essence;
  meta: FetchState<BlockMetadata>;
}) {
  return (
    <>
      <FetchedCard title="Included" id="transaction-included" state={meta} what="the including block">
        {(m) => (
          <Facts
            items={[
              ["Included by block", <EntityLink key="b" kind="block" id={m.blockId} />, "included-block"],
              [
                "Referenced by",
                m.referencedByMilestoneIndex !== undefined ? (
                  <EntityLink key="r" kind="milestone" id={m.referencedByMilestoneIndex} />
                ) : (
                  "no milestone yet"
                ),
                "referenced-by",
              ],
              [
                "Ledger inclusion",
                m.ledgerInclusionState === "conflicting"
                  ? `conflicting: ${conflictReasonWords(m.conflictReason ?? 0)}`
                  : (m.ledgerInclusionState ?? "unknown"),
                "inclusion",
              ],
            ]}
          />
        )}
      </FetchedCard>
      <Inputs essence={essence} />
      <Outputs transactionId={transactionId} essence={essence} />
      {essence.payload && (
        <Card title="Tagged data" id="transaction-tagged-data">
          <TaggedData tag={essence.payload.tag} data={essence.payload.data} />
        </Card>
      )}
    </>
  );
}

/** `/dashboard/explorer/transaction/:transactionId`. */
export const TransactionPage = idPage("transactionId", "Transaction", ID_BYTES, (id) => (
  <TransactionView key={id} transactionId={id} />
));
