import { api, type IndexerPage } from "../../api";
import { Card, ErrorNote, Loading } from "../../components";
import { AddressKind, addressKindName, decodeBech32Address } from "../../explorer/ids";
import { NativeTokens, nativeTokensOf, OutputKind, useChainId } from "../../explorer/outputs";
import { PagedOutputs } from "../../explorer/pagedOutputs";
import {
  Amount,
  EntityLink,
  ExplorerPage,
  Facts,
  mapLimit,
  Pager,
  ROW_READS,
  TableWrap,
  useCursorPages,
} from "../../explorer/parts";
import { formatNumber } from "../../format";
import { useLoad } from "../../hooks";
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
  const balance = useLoad((signal) => api.explorerBalance(bech32, { signal }), [bech32]);
  return (
    <Card title="Balance" id="address-balance">
      {balance.error && <ErrorNote message={balance.error} retry={balance.reload} />}
      {!balance.data && !balance.error && <Loading what="the balance" />}
      {balance.data && (
        <Facts
          items={[
            ["Total", <Amount key="t" value={balance.data.totalBalance} />, "total-balance"],
            ["Available now", <Amount key="a" value={balance.data.availableBalance} />, "available-balance"],
            ["As of", <EntityLink key="l" kind="milestone" id={balance.data.ledgerIndex} />, "balance-ledger-index"],
          ]}
        />
      )}
      <p class="hint">
        Available leaves out outputs still timelocked and outputs whose expiration passed (they belong to their return
        address now).
      </p>
    </Card>
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
  const tokens = useLoad(
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
    <Card title="Native tokens" id="address-tokens">
      {tokens.error && <ErrorNote message={tokens.error} retry={tokens.reload} />}
      {!tokens.data && !tokens.error && <Loading what="the native tokens" />}
      {tokens.data && <NativeTokens tokens={tokens.data.tokens} />}
      {tokens.data?.partial && (
        <p class="muted">Added up over the first {NATIVE_TOKEN_SCAN} outputs that hold native tokens.</p>
      )}
    </Card>
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
  const listed = useLoad(
    async (signal) => {
      const ids = [...new Set((await load(signal)).flatMap((p) => p.items))];
      const outputs = await mapLimit(ids, ROW_READS, (o) => api.output(o, { signal }));
      return ids.map((outputId, i) => ({ outputId, output: outputs[i]!.output }));
    },
    [bech32],
  );
  return (
    <Card title={title} id={id}>
      {listed.error && <ErrorNote message={listed.error} retry={listed.reload} />}
      {!listed.data && !listed.error && <Loading what={title.toLowerCase()} />}
      {listed.data &&
        (listed.data.length === 0 ? (
          <p>None.</p>
        ) : (
          <ul class="plain-list" data-chains={kind}>
            {listed.data.map(({ outputId, output }) => (
              <ChainItem
                key={outputId}
                kind={kind}
                outputId={outputId}
                field={
                  output.type === OutputKind.Alias
                    ? (output.aliasId as string)
                    : output.type === OutputKind.Nft
                      ? (output.nftId as string)
                      : undefined
                }
              />
            ))}
          </ul>
        ))}
    </Card>
  );
}

/** A foundry's ID comes from its output (controlling alias, serial number, scheme): listed by output here. */
function Foundries({ bech32 }: { bech32: string }) {
  const listed = useLoad(
    (signal) => api.indexerOutputs("foundry", { aliasAddress: bech32, pageSize: 100 }, { signal }),
    [bech32],
  );
  return (
    <Card title="Foundries of this alias" id="address-foundries">
      {listed.error && <ErrorNote message={listed.error} retry={listed.reload} />}
      {!listed.data && !listed.error && <Loading what="the foundries" />}
      {listed.data &&
        (listed.data.items.length === 0 ? (
          <p>None.</p>
        ) : (
          <ul class="plain-list" data-chains="foundry">
            {listed.data.items.map((o) => (
              <li key={o}>
                foundry output <EntityLink kind="output" id={o} />
              </li>
            ))}
          </ul>
        ))}
    </Card>
  );
}

function Updates({ bech32 }: { bech32: string }) {
  const pages = useCursorPages();
  // the rows carry the page they are of: the last page stays shown while the next one loads
  const updates = useLoad(
    async (signal) => ({
      page: pages.page,
      ...(await api.explorerUpdatesByAddress(
        bech32,
        pages.cursor ? { cursor: pages.cursor, sort: "newest" } : { pageSize: ADDRESS_PAGE_SIZE, sort: "newest" },
        { signal },
      )),
    }),
    [bech32, pages.cursor],
  );
  const items = updates.data?.items ?? [];
  return (
    <Card title="Ledger updates, newest first" id="address-updates">
      {updates.error && <ErrorNote message={updates.error} retry={updates.reload} />}
      {!updates.data && !updates.error && <Loading what="the ledger updates" />}
      {updates.data &&
        (items.length === 0 ? (
          <p>No output of this address was created or spent since the node keeps ledger updates.</p>
        ) : (
          <TableWrap label="Ledger updates">
            <table data-updates data-page={updates.data.page}>
              <thead>
                <tr>
                  <th scope="col">Milestone</th>
                  <th scope="col">Output</th>
                  <th scope="col">Change</th>
                </tr>
              </thead>
              <tbody>
                {items.map((u) => (
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
              </tbody>
            </table>
          </TableWrap>
        ))}
      <Pager pages={pages} nextCursor={updates.data?.cursor} label="ledger updates" busy={updates.loading} />
    </Card>
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
              type === AddressKind.Ed25519 ? "Public key hash" : type === AddressKind.Alias ? "Alias" : "NFT",
              type === AddressKind.Ed25519 ? (
                <code key="h">{id}</code>
              ) : (
                <EntityLink key="c" kind={type === AddressKind.Alias ? "alias" : "nft"} id={id} />
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
      {type === AddressKind.Alias && <Foundries bech32={bech32} />}
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
