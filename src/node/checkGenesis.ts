import { bytesEqual, toHex } from "../codec/hex.js";
import { outputIdFromParts } from "../codec/ids.js";
import { minStorageDeposit } from "../codec/storageDeposit.js";
import { type NetworkConfig, NetworkErrorCode } from "../network/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { devGenesisOutput, GENESIS_OUTPUT_ID } from "./devNetwork.js";
import { allocationOwner, MAX_ALLOCATIONS, ZERO_TRANSACTION_ID } from "./genesis.js";

/**
 * The genesis of a network description checked before a node writes it: outputs must be what
 * `genesisOutputs` makes (plain basic outputs to an Ed25519 address, output IDs 0, 1, … of the
 * zero transaction), each above its storage deposit, summing to the token supply; on `dev`,
 * output 0 is the dev key's (the dev accounts, when funded, follow it).
 */
export function checkGenesis(config: NetworkConfig, source: string): void {
  const outputs = config.genesis.outputs;
  const refuse = (why: string): never => {
    throw new LedgerNodeError(NetworkErrorCode.InvalidNetworkConfig, `${source}: genesis: ${why}`);
  };
  if (config.genesis.kind === "dev") {
    const devKey = allocationOwner(devGenesisOutput())!;
    const first = outputs[0];
    const owner = first && allocationOwner(first.output);
    if (
      !first ||
      !bytesEqual(first.outputId, GENESIS_OUTPUT_ID) ||
      !owner ||
      !bytesEqual(owner.pubKeyHash, devKey.pubKeyHash)
    ) {
      refuse("not the dev genesis: output 0 must be the dev key's");
    }
  }
  if (outputs.length < 1 || outputs.length > MAX_ALLOCATIONS)
    refuse(`1..${MAX_ALLOCATIONS} outputs, got ${outputs.length}`);
  let total = 0n;
  outputs.forEach((g, i) => {
    const o = g.output;
    if (!allocationOwner(o)) refuse(`outputs[${i}] is not a basic output with an Ed25519 address only`);
    if (!bytesEqual(g.outputId, outputIdFromParts(ZERO_TRANSACTION_ID, i))) {
      refuse(`outputs[${i}].outputId is ${toHex(g.outputId)}, expected output ${i} of the zero transaction`);
    }
    if (o.amount < minStorageDeposit(o, config.protocol.rentStructure)) {
      refuse(`outputs[${i}].amount is below its storage deposit`);
    }
    total += o.amount;
  });
  if (total !== config.protocol.tokenSupply) {
    refuse(`outputs sum to ${total}, the token supply is ${config.protocol.tokenSupply}`);
  }
}
