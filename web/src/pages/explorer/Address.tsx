import { AddressType, OutputType } from "../../../../src/codec/types";
import { api, type IndexerPage } from "../../api";
import { Card, ErrorNote, Facts, FetchedCard, Loading } from "../../components";
import { decodeBech32Address } from "../../explorer/ids";
import { NativeTokens, nativeTokensOf, useChainId } from "../../explorer/outputs";
import { PagedOutputs } from "../../explorer/pagedOutputs";
import { PagedCard } from "../../explorer/paging";
import { Amount, DataTable, EntityLink, ExplorerPage, mapLimit, ROW_READS } from "../../explorer/parts";
import { formatNumber } from "../../format";
import { useFetched } from "../../hooks";
import { addressKindName } from "../../kindNames";
import { useNodeInfo } from "../../nodeInfo";

/**
 * An address (TIP-31 bech32): its balance, total and available (Chronicle's
 * `GET /api/explorer/v2/balance/{address}`), its unspent outputs (inx-indexer's basic listing by
 * address, paged), the native tokens they hold, the NFTs it owns, the aliases it controls as
 * state controller or governor and, for an alias address, its foundries (indexer), and its
 * ledger updates (`GET /api/explorer/v2/ledger/updates/by-address/{address}`, paged).
 */

/** Rows per page of the outputs and the ledger updates. */
export const ADDRESS_PAGE_SIZE = 10;
/** Outputs read to add up native tokens: the first page of the outputs holding any. */
const NATIVE_TOKEN_SCAN = 100;

function Balance({ bech32 }: { bech32: string }) {
  const balance = useFetched((signal) => api.explorerBalance(bech32, { signal }), [bech32]);
  return (
    <FetchedCard
      title="Balance"
      id="address-balance"
      state={balance}
      what="the balance"
      after={
        <p class="hint">
          Total: the outputs the address owns that have not expired, less the storage deposits it must return when it
          spends them, and the expired outputs it is the return address of. Available leaves out outputs still
          timelocked.
        </p>
      }
    >
      {(b) => (
        <Facts
          items={[
            ["Total", <Amount key="t" value={b.totalBalance} />, "total-balance"],
            ["Available now", <Amount key="a" value={b.availableBalance} />, "available-balance"],
            ["As of", <EntityLink key="l" kind="milestone" id={b.ledgerIndex} />, "balance-ledger-index"],
          ]}
        />
      )}
    </FetchedCard>
  );
}

function Outputs({ bech32 }: { bech32: string }) {
  return (
    <PagedOutputs
      title="Unspent basic outputs"
      id="address-outputs"
      kind="basic"
      filter={{ address: bech32 }}
      pageSize={ADDRESS_PAGE_SIZE}
      column={{
        heading: "Native tokens",
        cell: (o) => (nativeTokensOf(o).length === 0 ? "—" : formatNumber(nativeTokensOf(o).length)),
      }}
      empty="No unspent basic output belongs to this address."
      pagerLabel="outputs"
      tableData={{ "data-address-outputs": true }}
    />
  );
}

/** The native tokens of the address's basic outputs, added up over the first outputs that hold any. */
function Tokens({ bech32 }: { bech32: string }) {
  const tokens = useFetched(
    async (signal) => {
      const page = await api.indexerOutputs(
        "basic",
        { address: bech32, hasNativeTokens: true, pageSize: NATIVE_TOKEN_SCAN },
        { signal },
      );
      const outputs = await mapLimit(page.items, ROW_READS, (id) => api.output(id, { signal }));
      const sums = new Map<string, bigint>();
      for (const { output } of outputs) {
        for (const t of nativeTokensOf(output)) sums.set(t.id, (sums.get(t.id) ?? 0n) + BigInt(t.amount));
      }
      return {
        tokens: [...sums].map(([id, amount]) => ({ id, amount: `0x${amount.toString(16)}` })),
        partial: page.cursor !== undefined,
      };
    },
    [bech32],
  );
  return (
    <FetchedCard
      title="Native tokens"
      id="address-tokens"
      state={tokens}
      what="the native tokens"
      after={
        tokens.data?.partial && (
          <p class="muted">Added up over the first {NATIVE_TOKEN_SCAN} outputs that hold native tokens.</p>
        )
      }
    >
      {(t) => <NativeTokens tokens={t.tokens} />}
    </FetchedCard>
  );
}

/** One chain output of a listing: its chain's link (computed for a chain created in it). */
function ChainItem({ kind, outputId, field }: { kind: "alias" | "nft" | "foundry"; outputId: string; field?: string }) {
  const id = useChainId(outputId, field);
  return (
    <li data-chain={kind}>
      {id ? <EntityLink kind={kind} id={id} /> : "…"} <span class="muted">in output</span>{" "}
      <EntityLink kind="output" id={outputId} />
    </li>
  );
}

/** The chains an indexer listing names: NFTs, aliases or foundries, by their current outputs. */
function Chains({
  bech32,
  title,
  id,
  kind,
  load,
}: {
  bech32: string;
  title: string;
  id: string;
  kind: "alias" | "nft" | "foundry";
  load: (signal: AbortSignal) => Promise<IndexerPage[]>;
}) {
  const listed = useFetched(
    async (signal) => {
      const ids = [...new Set((await load(signal)).flatMap((p) => p.items))];
      const outputs = await mapLimit(ids, ROW_READS, (o) => api.output(o, { signal }));
      return ids.map((outputId, i) => ({ outputId, output: outputs[i]!.output }));
    },
    [bech32],
  );
  return (
    <FetchedCard title={title} id={id} state={listed} what={title.toLowerCase()}>
      {(chains) =>
        chains.length === 0 ? (
          <p>None.</p>
        ) : (
          <ul class="plain-list" data-chains={kind}>
            {chains.map(({ outputId, output }) => (
              <ChainItem
                key={outputId}
                kind={kind}
                outputId={outputId}
                field={
                  output.type === OutputType.Alias
                    ? (output.aliasId as string)
                    : output.type === OutputType.Nft
                      ? (output.nftId as string)
                      : undefined
                }
              />
            ))}
          </ul>
        )
      }
    </FetchedCard>
  );
}

/** A foundry's ID comes from its output (controlling alias, serial number, scheme): listed by output here. */
function Foundries({ bech32 }: { bech32: string }) {
  const listed = useFetched(
    (signal) => api.indexerOutputs("foundry", { aliasAddress: bech32, pageSize: 100 }, { signal }),
    [bech32],
  );
  return (
    <FetchedCard title="Foundries of this alias" id="address-foundries" state={listed} what="the foundries">
      {(found) =>
        found.items.length === 0 ? (
          <p>None.</p>
        ) : (
          <ul class="plain-list" data-chains="foundry">
            {found.items.map((o) => (
              <li key={o}>
                foundry output <EntityLink kind="output" id={o} />
              </li>
            ))}
          </ul>
        )
      }
    </FetchedCard>
  );
}

function Updates({ bech32 }: { bech32: string }) {
  return (
    <PagedCard
      title="Ledger updates, newest first"
      id="address-updates"
      pageSize={ADDRESS_PAGE_SIZE}
      load={(ask, signal) => api.explorerUpdatesByAddress(bech32, { ...ask, sort: "newest" }, { signal })}
      deps={[bech32]}
      what="the ledger updates"
      pagerLabel="ledger updates"
      items={(page) => page.items}
      empty="No output of this address was created or spent since the node keeps ledger updates."
    >
      {(updates, { page }) => (
        <DataTable
          label="Ledger updates"
          headings={["Milestone", "Output", "Change"]}
          tableData={{ "data-updates": true, "data-page": page }}
        >
          {updates.map((u) => (
            <tr
              key={`${u.outputId}-${u.isSpent}`}
              data-update={`${u.milestoneIndex}.${u.outputId}.${u.isSpent ? 1 : 0}`}
            >
              <td>
                <EntityLink kind="milestone" id={u.milestoneIndex} />
              </td>
              <td>
                <EntityLink kind="output" id={u.outputId} />
              </td>
              <td>{u.isSpent ? "spent" : "received"}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </PagedCard>
  );
}

function AddressView({ bech32, type, id }: { bech32: string; type: number; id: string }) {
  return (
    <>
      <Card title="Address" id="address-fields">
        <Facts
          items={[
            ["Kind", addressKindName(type), "address-kind"],
            [
              type === AddressType.Ed25519 ? "Public key hash" : type === AddressType.Alias ? "Alias" : "NFT",
              type === AddressType.Ed25519 ? (
                <code key="h">{id}</code>
              ) : (
                <EntityLink key="c" kind={type === AddressType.Alias ? "alias" : "nft"} id={id} />
              ),
              "address-id",
            ],
          ]}
        />
      </Card>
      <Balance bech32={bech32} />
      <Tokens bech32={bech32} />
      <Outputs bech32={bech32} />
      <Chains
        bech32={bech32}
        title="NFTs it owns"
        id="address-nfts"
        kind="nft"
        load={async (signal) => [await api.indexerOutputs("nft", { address: bech32, pageSize: 100 }, { signal })]}
      />
      <Chains
        bech32={bech32}
        title="Aliases it controls"
        id="address-aliases"
        kind="alias"
        load={(signal) =>
          Promise.all([
            api.indexerOutputs("alias", { stateController: bech32, pageSize: 100 }, { signal }),
            api.indexerOutputs("alias", { governor: bech32, pageSize: 100 }, { signal }),
          ])
        }
      />
      {type === AddressType.Alias && <Foundries bech32={bech32} />}
      <Updates bech32={bech32} />
    </>
  );
}

/** `/dashboard/explorer/address/:bech32`. */
export function AddressPage({ bech32 }: { bech32: string }) {
  const hrp = useNodeInfo().data?.protocol.bech32Hrp;
  const address = bech32.trim().toLowerCase();
  const decoded = decodeBech32Address(address);
  const problem =
    "error" in decoded
      ? `"${bech32}" is ${decoded.error}.`
      : hrp !== undefined && decoded.hrp !== hrp
        ? `${bech32} is an address of another network ("${decoded.hrp}"); this node's addresses start with "${hrp}1".`
        : undefined;
  return (
    <ExplorerPage kind="Address" id={"error" in decoded ? undefined : address}>
      {problem ? (
        <ErrorNote message={problem} />
      ) : hrp === undefined || "error" in decoded ? (
        <Loading what="the network" />
      ) : (
        <AddressView key={address} bech32={address} type={decoded.type} id={decoded.id} />
      )}
    </ExplorerPage>
  );
}
