import { fromHex } from "../src/codec/hex.js";
import {
  computeTransactionId,
  essenceSigningHash,
  inputsCommitment,
  networkIdFromName,
  outputIdFromParts,
  utxoInputOfOutputId,
} from "../src/codec/ids.js";
import type { BasicOutput, TransactionPayload } from "../src/codec/types.js";
import { blake2b256, type Ed25519KeyPair, ed25519KeyPairFromSeed, ed25519Sign } from "../src/crypto/index.js";
import { DEV_KEY, devGenesisOutput, devProtocolParameters, GENESIS_OUTPUT_ID } from "../src/node/devNetwork.js";

/**
 * The signed-transfer workload of the core and devnode benchmarks: the dev genesis (a node opened
 * with `devAccounts: 0`) fanned out to distinct wallets, each of which then spends its output
 * back to itself.
 */

export const params = devProtocolParameters(0);
const networkId = networkIdFromName(params.networkName);
export const devKey = ed25519KeyPairFromSeed(fromHex(DEV_KEY.seed, "seed"));
export const devAddress = { type: 0 as const, pubKeyHash: fromHex(DEV_KEY.pubKeyHash, "pkh") };

export const basic = (pubKeyHash: Uint8Array, amount: bigint): BasicOutput => ({
  type: 3,
  amount,
  nativeTokens: [],
  unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash } }],
  features: [],
});

/** A signed transaction spending `inputs` (all owned by `key`) into `outputs`. */
export function signedTx(
  key: Ed25519KeyPair,
  inputs: { id: Uint8Array; output: BasicOutput }[],
  outputs: BasicOutput[],
): TransactionPayload {
  const essence = {
    type: 1 as const,
    networkId,
    inputs: inputs.map((i) => utxoInputOfOutputId(i.id)),
    inputsCommitment: inputsCommitment(inputs.map((i) => i.output)),
    outputs,
  };
  const sig = ed25519Sign(key, essenceSigningHash(essence));
  return {
    type: 6,
    essence,
    unlocks: inputs.map((_, i) =>
      i === 0
        ? { type: 0 as const, signature: { type: 0 as const, publicKey: key.publicKey, signature: sig } }
        : { type: 1 as const, reference: 0 },
    ),
  };
}

export interface FundedOutput {
  id: Uint8Array;
  output: BasicOutput;
  key: Ed25519KeyPair;
  hash: Uint8Array;
}

/** `n` distinct wallets, each funded by one output of a chain of 127-output transactions from the genesis. */
export function fanOut(n: number): { txs: TransactionPayload[]; funded: FundedOutput[] } {
  const wallets = Array.from({ length: n }, (_, i) =>
    ed25519KeyPairFromSeed(blake2b256(Uint8Array.of(i & 0xff, i >> 8, i >> 16))),
  );
  const hashes = wallets.map((w) => blake2b256(w.publicKey));
  const per = 1_000_000n;
  const txs: TransactionPayload[] = [];
  const funded: FundedOutput[] = [];
  let source: { id: Uint8Array; output: BasicOutput } = { id: GENESIS_OUTPUT_ID, output: devGenesisOutput() };
  for (let start = 0; start < n; start += 127) {
    const batch = wallets.slice(start, start + 127);
    const outs = batch.map((_, j) => basic(hashes[start + j]!, per));
    const rest = source.output.amount - per * BigInt(batch.length);
    outs.push(basic(devAddress.pubKeyHash, rest));
    const tx = signedTx(devKey, [source], outs);
    const txId = computeTransactionId(tx);
    txs.push(tx);
    batch.forEach((key, j) => {
      funded.push({ id: outputIdFromParts(txId, j), output: outs[j]!, key, hash: hashes[start + j]! });
    });
    source = { id: outputIdFromParts(txId, batch.length), output: outs[batch.length]! };
  }
  return { txs, funded };
}

/** The transfer of a funded output back to its own wallet. */
export const selfTransfer = (f: FundedOutput): TransactionPayload =>
  signedTx(f.key, [f], [basic(f.hash, f.output.amount)]);
