import { useEffect } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, type MilestonePayload, type UtxoChanges } from "../../api";
import { Card, ErrorNote, Facts, Fetched, FetchedCard, Loading } from "../../components";
import { COMMITMENT_ID_BYTES, hexBytes, ID_BYTES, isHex, isZeroId } from "../../explorer/ids";
import { explorerHref } from "../../explorer/links";
import { PagedCard } from "../../explorer/paging";
import { DataTable, EntityLink, EntityList, ExplorerPage } from "../../explorer/parts";
import { formatNumber, formatTime } from "../../format";
import { type FetchState, useFetched } from "../../hooks";
import { payloadKindName } from "../../kindNames";
import { useNodeInfo } from "../../nodeInfo";

/**
 * A milestone (TIP-29) by index: its fields, the public keys that signed it, links to the
 * previous and next milestones, the blocks it referenced in white-flag order (Chronicle's
 * `GET /api/explorer/v2/milestones/by-index/{index}/blocks`, paged by its cursor) and the
 * transactions it included (the ones that created outputs in its ledger changes, TIP-25
 * `utxo-changes`). A milestone ID (or a commitment ID) in the URL is looked up and replaced by
 * the index.
 */

/** Referenced blocks per page. */
export const MILESTONE_BLOCKS_PAGE_SIZE = 20;
/** Included transactions listed at most (a milestone's ledger changes are not paged). */
const MAX_TRANSACTIONS_SHOWN = 500;

/**
 * The milestone's ID: the explorer's milestones listing by the milestone's timestamp (the ID is
 * the hash of the milestone's essence, TIP-29, which the listing already holds).
 */
async function milestoneIdOf(m: MilestonePayload, signal: AbortSignal): Promise<string | undefined> {
  const page = await api.explorerMilestones(
    { startTimestamp: m.timestamp, endTimestamp: m.timestamp, sort: "oldest", pageSize: 1000 },
    { signal },
  );
  return page.items.find((i) => i.index === m.index)?.milestoneId;
}

function Blocks({ index }: { index: number }) {
  return (
    <PagedCard
      title="Referenced blocks, in white-flag order"
      id="milestone-blocks"
      pageSize={MILESTONE_BLOCKS_PAGE_SIZE}
      load={(ask, signal) => api.explorerMilestoneBlocksByIndex(index, ask, { signal })}
      deps={[index]}
      what="the referenced blocks"
      pagerLabel="referenced blocks"
      items={(page) => page.blocks}
      empty="This milestone referenced no block."
    >
      {(blocks, { page }) => (
        <DataTable
          label="Referenced blocks"
          headings={["Position", "Block", "Payload"]}
          tableData={{ "data-milestone-blocks": true, "data-page": page }}
        >
          {blocks.map((b, i) => (
            <tr key={b.blockId} data-block={b.blockId}>
              <td>{formatNumber((page - 1) * MILESTONE_BLOCKS_PAGE_SIZE + i)}</td>
              <td>
                <EntityLink kind="block" id={b.blockId} />
              </td>
              <td>{payloadKindName(b.payloadType)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </PagedCard>
  );
}

function Transactions({ index }: { index: number }) {
  const changes = useFetched((signal) => api.utxoChangesByIndex(index, { signal }), [index]);
  return (
    <FetchedCard title="Included transactions" id="milestone-transactions" state={changes} what="the ledger changes">
      {(c) => <IncludedTransactions changes={c} />}
    </FetchedCard>
  );
}

function IncludedTransactions({ changes }: { changes: UtxoChanges }) {
  // a transaction included by the milestone created at least one output (TIP-20: 1..128 outputs)
  const transactions = [...new Set(changes.createdOutputs.map((o) => o.slice(0, 66)))];
  if (transactions.length === 0) return <p>This milestone included no transaction.</p>;
  return (
    <>
      <p>
        {formatNumber(transactions.length)} transaction{transactions.length === 1 ? "" : "s"} created{" "}
        {formatNumber(changes.createdOutputs.length)} output
        {changes.createdOutputs.length === 1 ? "" : "s"} and spent {formatNumber(changes.consumedOutputs.length)}.
      </p>
      <EntityList
        kind="transaction"
        ids={transactions.slice(0, MAX_TRANSACTIONS_SHOWN)}
        listData={{ "data-transactions": true }}
      />
      {transactions.length > MAX_TRANSACTIONS_SHOWN && (
        <p class="muted">The first {MAX_TRANSACTIONS_SHOWN} are listed.</p>
      )}
    </>
  );
}

function MilestoneView({ index }: { index: number }) {
  const milestone = useFetched((signal) => api.milestoneByIndex(index, { signal }), [index]);
  const id = useFetched(
    async (signal) => (milestone.data ? milestoneIdOf(milestone.data, signal) : undefined),
    [milestone.data],
  );
  return (
    <Fetched
      state={milestone}
      what="the milestone"
      notFound={`This node has no milestone ${formatNumber(index)} (not issued yet, or pruned).`}
    >
      {(m) => <MilestoneFields index={index} m={m} id={id} />}
    </Fetched>
  );
}

function MilestoneFields({ index, m, id }: { index: number; m: MilestonePayload; id: FetchState<string | undefined> }) {
  const confirmed = useNodeInfo().data?.status.confirmedMilestone.index;
  const signatures = (m.signatures as { publicKey: string }[] | undefined) ?? [];
  const options = (m.options as { type: number }[] | undefined) ?? [];
  return (
    <>
      <nav class="pager" aria-label="Neighbouring milestones">
        {isZeroId(m.previousMilestoneId) ? (
          <span class="muted">This is the first milestone.</span>
        ) : (
          <a href={explorerHref("milestone", index - 1)} rel="prev" data-link="previous-milestone">
            Previous: milestone {formatNumber(index - 1)}
          </a>
        )}
        {confirmed !== undefined && index < confirmed ? (
          <a href={explorerHref("milestone", index + 1)} rel="next" data-link="next-milestone">
            Next: milestone {formatNumber(index + 1)}
          </a>
        ) : (
          <span class="muted">No later milestone is confirmed yet.</span>
        )}
      </nav>
      <Card title="Milestone" id="milestone-fields">
        <Facts
          items={[
            ["Index", formatNumber(m.index), "index"],
            ["Milestone ID", id.data ? <code key="i">{id.data}</code> : (id.error ?? "…"), "milestone-id"],
            ["Timestamp", formatTime(m.timestamp), "timestamp"],
            ["Protocol version", String(m.protocolVersion), "protocol-version"],
            [
              "Previous milestone ID",
              isZeroId(m.previousMilestoneId) ? "none" : <code key="p">{m.previousMilestoneId}</code>,
              "previous-milestone-id",
            ],
            ["Inclusion Merkle root", <code key="r1">{m.inclusionMerkleRoot}</code>, "inclusion-merkle-root"],
            ["Applied Merkle root", <code key="r2">{m.appliedMerkleRoot}</code>, "applied-merkle-root"],
            options.length > 0 && [
              "Options",
              options
                .map((o) => (o.type === 0 ? "receipt" : o.type === 1 ? "protocol parameters" : `type ${o.type}`))
                .join(", "),
              "options",
            ],
          ]}
        />
        <h3>Parents</h3>
        <EntityList kind="block" ids={m.parents} listData={{ "data-parents": true }} />
        <h3>Signed by ({signatures.length})</h3>
        <ul class="plain-list" data-signatures>
          {signatures.map((s) => (
            <li key={s.publicKey}>
              public key <code>{s.publicKey}</code>
            </li>
          ))}
        </ul>
      </Card>
      <Blocks index={index} />
      <Transactions index={index} />
    </>
  );
}

/** A milestone ID or commitment ID in the URL: looked up, then the page moves to the index. */
function RedirectById({ id }: { id: string }) {
  const { route } = useLocation();
  const milestone = useFetched((signal) => api.milestoneById(id.slice(0, 2 + 2 * ID_BYTES), { signal }), [id]);
  useEffect(() => {
    if (milestone.data) route(explorerHref("milestone", milestone.data.index), true);
  }, [milestone.data]);
  return (
    <Fetched state={milestone} what="the milestone" notFound={`This node knows no milestone with the ID ${id}.`}>
      {() => <Loading what="the milestone" />}
    </Fetched>
  );
}

/** `/dashboard/explorer/milestone/:index` (an index, or a milestone ID that redirects to it). */
export function MilestonePage({ index }: { index: string }) {
  const raw = index.toLowerCase();
  if (isHex(raw) && (hexBytes(raw) === ID_BYTES || hexBytes(raw) === COMMITMENT_ID_BYTES)) {
    return (
      <ExplorerPage kind="Milestone" id={raw}>
        <RedirectById key={raw} id={raw} />
      </ExplorerPage>
    );
  }
  const n = Number(raw);
  const valid = /^[0-9]{1,10}$/.test(raw) && n <= 0xffffffff;
  return (
    <ExplorerPage kind="Milestone" title={valid ? `Milestone ${formatNumber(n)}` : "Milestone"}>
      {valid ? (
        <MilestoneView key={n} index={n} />
      ) : (
        <ErrorNote message={`"${index}" is no milestone index or milestone ID.`} />
      )}
    </ExplorerPage>
  );
}
