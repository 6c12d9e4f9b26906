import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { AddressType } from "../../../src/codec/types";
import { ApiError, api, messageOf } from "../api";
import { Card, ErrorNote, Facts, Fetched, Loading } from "../components";
import { formatNumber } from "../format";
import { useFetched } from "../hooks";
import { useNodeInfo } from "../nodeInfo";
import { type ChainKind, type ChainStep, previousStep } from "./chainHistory";
import { addressToBech32, FOUNDRY_ID_BYTES, ID_BYTES } from "./ids";
import { TokenAmount } from "./ircMetadata";
import { OutputFields } from "./outputs";
import { Amount, EntityLink, IdPage, TableWrap } from "./parts";

/**
 * The page of an alias, NFT or foundry: its current output (inx-indexer's lookup,
 * `GET /api/indexer/v1/outputs/{alias|nft|foundry}/{id}`) in words, its own address (alias and
 * NFT: TIP-18 chain addresses, whose page lists what it owns and its ledger updates), and its
 * history back to its creation (chainHistory.ts), read a few steps at a time.
 */

/** Steps of history read per "older" request. */
const HISTORY_STEPS = 10;

const WORDS: Record<ChainKind, { title: string; noun: string; what: string; bytes: number }> = {
  alias: { title: "Alias", noun: "alias", what: "an alias", bytes: ID_BYTES },
  nft: { title: "NFT", noun: "NFT", what: "an NFT", bytes: ID_BYTES },
  foundry: { title: "Foundry", noun: "foundry", what: "a foundry", bytes: FOUNDRY_ID_BYTES },
};

/** What changed at a step, for the history table (a foundry's amounts in its token's units). */
function StepWords({ kind, chainId, step }: { kind: ChainKind; chainId: string; step: ChainStep }) {
  const o = step.output;
  if (kind === "alias")
    return (
      <>{`state ${formatNumber(o.stateIndex as number)}, ${formatNumber(o.foundryCounter as number)} foundries`}</>
    );
  if (kind === "foundry") {
    const scheme = o.tokenScheme as { mintedTokens: string; meltedTokens: string };
    return (
      <>
        <TokenAmount tokenId={chainId} amount={scheme.mintedTokens} /> minted,{" "}
        <TokenAmount tokenId={chainId} amount={scheme.meltedTokens} /> melted
      </>
    );
  }
  return null;
}

function History({ kind, chainId, current }: { kind: ChainKind; chainId: string; current: ChainStep }) {
  const [steps, setSteps] = useState<ChainStep[]>([current]);
  const [wanted, setWanted] = useState(HISTORY_STEPS);
  const [end, setEnd] = useState<"created" | "pruned" | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const busy = end === undefined && error === undefined && steps.length < wanted;

  useEffect(() => {
    if (!busy) return;
    const controller = new AbortController();
    previousStep(kind, chainId, steps[steps.length - 1]!, controller.signal).then(
      (previous) => {
        if (controller.signal.aborted) return;
        if (previous) setSteps((s) => [...s, previous]);
        else setEnd("created");
      },
      (e: unknown) => {
        if (controller.signal.aborted) return;
        // the spent outputs and transactions before the pruning index are gone
        if (e instanceof ApiError && e.status === 404) setEnd("pruned");
        else setError(messageOf(e));
      },
    );
    return () => controller.abort();
  }, [steps, wanted, busy]);

  return (
    <Card title="History, newest first" id="chain-history">
      <TableWrap label="History">
        <table data-history>
          <thead>
            <tr>
              <th scope="col">Output</th>
              <th scope="col">Booked</th>
              <th scope="col">Amount</th>
              {kind !== "nft" && <th scope="col">State</th>}
              <th scope="col">Spent by</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((s) => (
              <tr key={s.outputId} data-history-output={s.outputId}>
                <td>
                  <EntityLink kind="output" id={s.outputId} />
                </td>
                <td>
                  <EntityLink kind="milestone" id={s.metadata.milestoneIndexBooked} />
                </td>
                <td>
                  <Amount value={s.output.amount} />
                </td>
                {kind !== "nft" && (
                  <td>
                    <StepWords kind={kind} chainId={chainId} step={s} />
                  </td>
                )}
                <td>
                  {s.metadata.isSpent && s.metadata.transactionIdSpent ? (
                    <EntityLink kind="transaction" id={s.metadata.transactionIdSpent} />
                  ) : (
                    "unspent"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {busy && <Loading what="older outputs" />}
      {error && <ErrorNote message={`The history stops here: ${error}`} retry={() => setError(undefined)} />}
      {end === "created" && (
        <p data-history-end="created">The oldest output above is the one that created this {WORDS[kind].noun}.</p>
      )}
      {end === "pruned" && <p data-history-end="pruned">Older outputs are pruned from this node.</p>}
      {!busy && !end && !error && (
        <button type="button" class="secondary" onClick={() => setWanted(steps.length + HISTORY_STEPS)}>
          Show older outputs
        </button>
      )}
    </Card>
  );
}

function ChainView({ kind, chainId, details }: { kind: ChainKind; chainId: string; details?: ComponentChildren }) {
  const hrp = useNodeInfo().data?.protocol.bech32Hrp;
  const current = useFetched(
    async (signal): Promise<ChainStep> => {
      const lookup = await api.indexerChain(kind, chainId, { signal });
      const outputId = lookup.items[0]!;
      return { outputId, ...(await api.output(outputId, { signal })) };
    },
    [kind, chainId],
  );
  const ownAddress =
    hrp && kind !== "foundry"
      ? addressToBech32(
          kind === "alias" ? { type: AddressType.Alias, aliasId: chainId } : { type: AddressType.Nft, nftId: chainId },
          hrp,
        )
      : undefined;
  return (
    <Fetched
      state={current}
      what={`the ${WORDS[kind].noun}`}
      notFound={`No unspent output holds ${WORDS[kind].what} with this ID: it was destroyed, it never existed, or its outputs are pruned.`}
    >
      {(step) => <ChainNow kind={kind} chainId={chainId} step={step} ownAddress={ownAddress} details={details} />}
    </Fetched>
  );
}

function ChainNow({
  kind,
  chainId,
  step,
  ownAddress,
  details,
}: {
  kind: ChainKind;
  chainId: string;
  step: ChainStep;
  ownAddress: string | undefined;
  details?: ComponentChildren;
}) {
  return (
    <>
      <Card title="Now" id="chain-now">
        <Facts
          items={[
            ["Current output", <EntityLink key="o" kind="output" id={step.outputId} />, "current-output"],
            ownAddress !== undefined && [
              "Its address",
              <EntityLink key="a" kind="address" id={ownAddress} />,
              "chain-address",
            ],
            kind === "foundry" && ["Native token ID", <code key="t">{chainId}</code>, "token-id"],
          ]}
        />
        <OutputFields output={step.output} outputId={step.outputId} />
      </Card>
      {details}
      <History kind={kind} chainId={chainId} current={step} />
    </>
  );
}

/**
 * `/dashboard/explorer/{alias|nft|foundry}/:id`; `details` of the chain's ID adds a card below
 * its current output (an NFT's or a token's IRC metadata).
 */
export function ChainPage({
  kind,
  id,
  details,
}: {
  kind: ChainKind;
  id: string;
  details?: (chainId: string) => ComponentChildren;
}) {
  return (
    <IdPage kind={WORDS[kind].title} raw={id} bytes={WORDS[kind].bytes}>
      {(chainId) => <ChainView key={`${kind}:${chainId}`} kind={kind} chainId={chainId} details={details?.(chainId)} />}
    </IdPage>
  );
}
