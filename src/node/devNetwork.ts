import { ed25519AddressOf } from "../codec/address.js";
import { fromHex } from "../codec/hex.js";
import {
  AddressType,
  type BasicOutput,
  OutputType,
  type ProtocolParameters,
  UnlockConditionType,
} from "../codec/types.js";
import type { NetworkConfig } from "../network/index.js";
import { type DevAccountsOptions, deriveDevAccounts, devAccountAllocations } from "./devAccounts.js";
import { genesisOutputs } from "./genesis.js";

/**
 * The dev network of docs/decisions.md, The dev network: its protocol parameters and its genesis, one basic
 * output holding the whole supply for the well-known test key. That key is public on purpose,
 * like a local Ethereum devnet's accounts, and is refused for any network but `dev`. It is the
 * preset of a network file (networkFile.ts) with one allocation, a coordinator key made by the
 * node that starts it, and the min PoW score and milestone interval as node settings.
 */

export const DEV_NETWORK_NAME = "dev";
export const DEV_PROTOCOL_VERSION = 2;
export const DEV_TOKEN_SUPPLY = 2779530283277761n;

/** The well-known dev key: its seed, public key and address (pubKeyHash). */
export const DEV_KEY = {
  seed: "0x64c2f3f1072df53b06173af7aa8a4b8e794e7980fca78bf7f3472ecc57e92a3c",
  publicKey: "0x974e30f17525ef12571759792269eadd12100e4c3b2bfc765da4d88cac75576d",
  pubKeyHash: "0x4c3dac64003e746d1a11d6ba9f4b20234e33627d2bf30d9d7153cb03a68f9e19",
} as const;

export function devProtocolParameters(minPowScore: number): ProtocolParameters {
  return {
    protocolVersion: DEV_PROTOCOL_VERSION,
    networkName: DEV_NETWORK_NAME,
    bech32Hrp: "tst",
    minPowScore,
    belowMaxDepth: 15,
    rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
    tokenSupply: DEV_TOKEN_SUPPLY,
  };
}

/** The genesis output without dev accounts: the whole supply to the dev key's Ed25519 address. */
export function devGenesisOutput(): BasicOutput {
  return {
    type: OutputType.Basic,
    amount: DEV_TOKEN_SUPPLY,
    nativeTokens: [],
    unlockConditions: [
      {
        type: UnlockConditionType.Address,
        address: { type: AddressType.Ed25519, pubKeyHash: fromHex(DEV_KEY.pubKeyHash, "devKey.pubKeyHash", 32) },
      },
    ],
    features: [],
  };
}

/** Output ID of the genesis output: the zero transaction ID, index 0. */
export const GENESIS_OUTPUT_ID = new Uint8Array(34);

/**
 * The dev network as a network description: the dev genesis, and the coordinator key of the
 * node that started it (one signature per milestone). `devAccounts`, the funded accounts of a
 * mnemonic (devAccounts.ts), follow the dev key's output as outputs 1, 2, …; the dev key holds the
 * rest, and the description keeps how they were derived (the dev routes list them from it).
 */
export function devNetworkConfig(
  minPowScore: number,
  coordinatorPublicKey: Uint8Array,
  milestoneIntervalMs: number,
  devAccounts?: DevAccountsOptions,
): NetworkConfig {
  const accounts = devAccounts ? devAccountAllocations(deriveDevAccounts(devAccounts)) : [];
  const funded = accounts.reduce((sum, a) => sum + a.amount, 0n);
  return {
    networkName: DEV_NETWORK_NAME,
    protocol: devProtocolParameters(minPowScore),
    coordinatorPublicKeys: [coordinatorPublicKey],
    coordinatorThreshold: 1,
    milestoneIntervalMs,
    genesis: {
      kind: "dev",
      // output 0 is the dev key's, as when it held the whole supply; the accounts follow
      outputs: genesisOutputs([
        { address: ed25519AddressOf(devGenesisAddressHash()), amount: DEV_TOKEN_SUPPLY - funded },
        ...accounts,
      ]),
    },
    peers: [],
    dev: true,
    ...(devAccounts && devAccounts.count > 0 ? { devAccounts: { ...devAccounts } } : {}),
  };
}

function devGenesisAddressHash(): Uint8Array {
  return fromHex(DEV_KEY.pubKeyHash, "devKey.pubKeyHash", 32);
}
