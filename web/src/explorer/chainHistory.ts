import { AddressType, OutputType } from "../../../src/codec/types";
import { api, type OutputWithMetadata } from "../api";
import { loadCodec } from "./codecLoader";
import { foundryIdOf, isZeroId, outputIdOf, splitOutputId } from "./ids";
import { mapLimit } from "./parts";

/**
 * The history of an alias, NFT or foundry as far as the node can tell it from its public routes:
 * each output of the chain was created by a transaction that spent the chain's previous output
 * (TIP-18 chain transitions), so from an output the step back is its creating transaction
 * (`GET /api/core/v2/transactions/{id}/included-block`) and, among that transaction's inputs
 * (`GET /api/core/v2/outputs/{id}`, spent outputs included until pruning), the one of the same
 * chain. No input of the chain: this transaction created it.
 */

export type ChainKind = "alias" | "nft" | "foundry";

/** One output of a chain, with its ID and metadata. */
export interface ChainStep extends OutputWithMetadata {
  outputId: string;
}

/** Input reads in flight at once while looking for the chain's previous output. */
const INPUT_READS = 6;

const OUTPUT_TYPE: Record<ChainKind, number> = {
  alias: OutputType.Alias,
  nft: OutputType.Nft,
  foundry: OutputType.Foundry,
};

/** Whether output `outputId` (of `kind`'s output type) belongs to chain `chainId`. */
async function ofChain(kind: ChainKind, chainId: string, step: ChainStep): Promise<boolean> {
  const o = step.output;
  if (o.type !== OUTPUT_TYPE[kind]) return false;
  if (kind === "foundry") {
    const alias = (o.unlockConditions as { type: number; address: { type: number; aliasId?: string } }[]).find(
      (c) => c.type === 6,
    )?.address;
    const scheme = o.tokenScheme as { type: number } | undefined;
    if (alias?.type !== AddressType.Alias || !alias.aliasId || !scheme) return false;
    return foundryIdOf(alias.aliasId, o.serialNumber as number, scheme.type) === chainId;
  }
  const field = (kind === "alias" ? o.aliasId : o.nftId) as string;
  // the output that created the chain holds the zero ID; its chain ID is the hash of its output ID
  if (isZeroId(field)) return (await loadCodec()).chainIdOfOutput(step.outputId) === chainId;
  return field.toLowerCase() === chainId;
}

/** The chain's output before `step`, or undefined when `step`'s transaction created the chain. */
export async function previousStep(
  kind: ChainKind,
  chainId: string,
  step: ChainStep,
  signal: AbortSignal,
): Promise<ChainStep | undefined> {
  const { transactionId } = splitOutputId(step.outputId);
  if (isZeroId(transactionId)) return undefined;
  const block = await api.includedBlock(transactionId, { signal });
  const inputs = (
    block.payload as unknown as { essence: { inputs: { transactionId: string; transactionOutputIndex: number }[] } }
  ).essence.inputs.map((i) => outputIdOf(i.transactionId, i.transactionOutputIndex));
  const read = await mapLimit(inputs, INPUT_READS, async (outputId) => ({
    outputId,
    ...(await api.output(outputId, { signal })),
  }));
  for (const input of read) if (await ofChain(kind, chainId, input)) return input;
  return undefined;
}
