import { api, type OutputJson } from "../../api";
import { Card, ErrorNote, Loading } from "../../components";
import { conflictReasonWords } from "../../explorer/conflictReason";
import { hexBytes, ID_BYTES, isHex, outputIdOf } from "../../explorer/ids";
import { OutputRow, OutputTable } from "../../explorer/outputs";
import { EntityLink, ExplorerPage, Facts, mapLimit, ROW_READS } from "../../explorer/parts";
import { useLoad } from "../../hooks";
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
  const spent = useLoad(
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
  const metadata = useLoad(
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
  const block = useLoad((signal) => api.includedBlock(transactionId, { signal }), [transactionId]);
  const meta = useLoad((signal) => api.includedBlockMetadata(transactionId, { signal }), [transactionId]);
  if (block.errorStatus === 404) {
    return (
      <ErrorNote
        message={`No transaction ${transactionId} is in the ledger of this node: it is known once a milestone includes it (a conflicting one never is), and forgotten when pruned.`}
      />
    );
  }
  if (block.error) return <ErrorNote message={block.error} retry={block.reload} />;
  if (!block.data) return <Loading what="the transaction" />;
  const essence = (block.data.payload as unknown as { essence: Essence }).essence;
  const m = meta.data;
  return (
    <>
      <Card title="Included" id="transaction-included">
        {meta.error && <ErrorNote message={meta.error} retry={meta.reload} />}
        {!m && !meta.error && <Loading what="the including block" />}
        {m && (
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
      </Card>
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
export function TransactionPage({ transactionId }: { transactionId: string }) {
  const id = transactionId.toLowerCase();
  const valid = isHex(id) && hexBytes(id) === ID_BYTES;
  return (
    <ExplorerPage kind="Transaction" id={valid ? id : undefined}>
      {valid ? (
        <TransactionView key={id} transactionId={id} />
      ) : (
        <ErrorNote
          message={`"${transactionId}" is no transaction ID: a transaction ID is 0x and 64 hex digits (32 bytes).`}
        />
      )}
    </ExplorerPage>
  );
}
