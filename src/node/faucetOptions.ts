import { fromHex } from "../codec/hex.js";
import { defaultFaucetOptions, FaucetErrorCode, type FaucetOptions } from "../faucet/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { DEV_KEY, DEV_NETWORK_NAME } from "./devNetwork.js";
import { readKeyFile } from "./keyFiles.js";
import type { NodeOptions } from "./options.js";

/**
 * The faucet's options from the node's: the one place that decides whether a node runs a
 * faucet and with which key, so another source of the key (a network file naming a key file)
 * plugs in here.
 *
 * - `--faucet false`: no faucet.
 * - `--faucet-key-file <file>`: the seed in that file.
 * - otherwise the data directory's `keys/faucet.key`, written by `init` from a network file
 *   that names a faucet key (node/networkFile.ts).
 * - otherwise, on the dev network's coordinator: the well-known dev key, which holds the dev
 *   genesis (README, The dev network). A follower has no faucet unless given a key: two nodes
 *   paying from one key would spend the same outputs and conflict.
 */
export async function faucetOptionsOf(
  options: NodeOptions,
  network: { networkName: string; runsCoordinator: boolean; storedSeed?: Uint8Array | undefined },
): Promise<FaucetOptions | undefined> {
  if (!options.faucet) return undefined;
  let seed: Uint8Array;
  if (options.faucetKeyFile !== "") seed = await readKeyFile(options.faucetKeyFile);
  else if (network.storedSeed) seed = network.storedSeed;
  else if (network.networkName === DEV_NETWORK_NAME && network.runsCoordinator)
    seed = fromHex(DEV_KEY.seed, "dev seed", 32);
  else return undefined;
  const amount = (value: number, flag: string): bigint => {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new LedgerNodeError(FaucetErrorCode.InvalidOptions, `--${flag} takes a positive integer`);
    }
    return BigInt(value);
  };
  return {
    ...defaultFaucetOptions,
    seed,
    amount: amount(options.faucetAmount, "faucet-amount"),
    maxAddressBalance: amount(options.faucetMaxAddressBalance, "faucet-max-address-balance"),
    batchSize: options.faucetBatchSize,
    queueSize: options.faucetQueueSize,
    perAddress: { requests: 1, periodMs: options.faucetAddressPeriodMs, burst: 1 },
    perClient: {
      requests: options.faucetClientRequests,
      periodMs: options.faucetClientPeriodMs,
      burst: options.faucetClientRequests,
    },
  };
}
