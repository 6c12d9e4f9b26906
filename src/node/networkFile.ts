import { dirname, resolve } from "node:path";
import { addressFromBech32, addressToBech32, ed25519AddressOf } from "../codec/address.js";
import { isCodecError } from "../codec/errors.js";
import { bytesEqual, toHex } from "../codec/hex.js";
import {
  expectArray,
  expectBool,
  expectHex,
  expectInt,
  expectObject,
  expectString,
  expectU8,
  expectU32,
  expectU64String,
} from "../codec/json.js";
import { minStorageDeposit } from "../codec/storageDeposit.js";
import { AddressType, type Ed25519Address, type ProtocolParameters } from "../codec/types.js";
import { blake2b256 } from "../crypto/blake2b.js";
import { ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import type { NetworkConfig } from "../network/index.js";
import { MAX_SETTINGS_FILE_BYTES, readBoundedFile } from "../util/boundedFile.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import {
  DEFAULT_DEV_MNEMONIC,
  type DevAccount,
  deriveDevAccounts,
  MAX_DEV_ACCOUNTS,
  normalMnemonic,
  SHIMMER_COIN_TYPE,
} from "./devAccounts.js";
import { isNodeError, NodeErrorCode } from "./errors.js";
import { type Allocation, allocationOutput, allocationOwner, genesisOutputs, MAX_ALLOCATIONS } from "./genesis.js";
import { readKeyFile } from "./keyFiles.js";

/**
 * The network file an operator writes to start a network of their own (`init --network`):
 *
 *   {
 *     "networkName": "my-net",                 TIP-22 network name (its ID is BLAKE2b of it)
 *     "bech32Hrp": "myn",                      TIP-31 human-readable part of addresses
 *     "tokenSupply": "1000000000000",          all tokens, a u64 decimal string
 *     "protocolVersion": 2,                    Stardust
 *     "minPowScore": 100,                      TIP-12
 *     "belowMaxDepth": 15,                     TIP-2
 *     "rentStructure": { "vByteCost": 100, "vByteFactorData": 1, "vByteFactorKey": 10 },
 *     "milestoneIntervalMs": 5000,             the coordinator's cadence
 *     "allocations": [{ "address": "myn1…", "amount": "…" }],   summing to the supply
 *     "coordinator": { "publicKeys": ["0x…", "0x…", "0x…"], "threshold": 2 },
 *     "faucet": { "keyFile": "faucet.key" },   optional; its address must hold an allocation
 *     "dev": true,                             optional: a network for builders (the dev routes)
 *     "devAccounts": { "count": 10, "amount": "…", "mnemonic": "…", "coinType": 4219 }
 *                                              optional: funded accounts of a BIP-39 mnemonic
 *                                              (devAccounts.ts; mnemonic and coinType optional)
 *   }
 *
 * Every rule is checked here, before anything is written, and a refusal names the field.
 * Paths in the file are relative to the file.
 */

export interface NetworkFile {
  /** The description followers join with (`network.json`), without peers yet. */
  config: NetworkConfig;
  /** The faucet's seed (from `faucet.keyFile`), when the network has a faucet. */
  faucetSeed?: Uint8Array;
}

const FIELDS = [
  "networkName",
  "bech32Hrp",
  "tokenSupply",
  "protocolVersion",
  "minPowScore",
  "belowMaxDepth",
  "rentStructure",
  "milestoneIntervalMs",
  "allocations",
  "coordinator",
] as const;

/** The one protocol version this node speaks (Stardust). */
const STARDUST_PROTOCOL_VERSION = 2;

function refuse(source: string, field: string, why: string): never {
  throw new LedgerNodeError(NodeErrorCode.InvalidNetworkFile, `${source}: ${field}: ${why}`);
}

/** The Ed25519 address of a seed's key (TIP-31: BLAKE2b-256 of the public key). */
export function ed25519AddressOfSeed(seed: Uint8Array): Ed25519Address {
  return ed25519AddressOf(blake2b256(ed25519KeyPairFromSeed(seed).publicKey));
}

/** Reads and checks a network file; the faucet's key file is read too. */
export async function readNetworkFile(path: string): Promise<NetworkFile> {
  let json: unknown;
  try {
    json = JSON.parse(
      await readBoundedFile(
        path,
        MAX_SETTINGS_FILE_BYTES,
        (why) => new LedgerNodeError(NodeErrorCode.InvalidNetworkFile, why),
      ),
    );
  } catch (e) {
    throw new LedgerNodeError(
      NodeErrorCode.InvalidNetworkFile,
      `cannot read network file ${path}: ${(e as Error).message}`,
    );
  }
  const file = networkFileFromJson(json, path);
  if (file.faucetKeyFile === undefined) return { config: file.config };
  const faucetPath = resolve(dirname(path), file.faucetKeyFile);
  const faucetSeed = await readKeyFile(faucetPath).catch((e: Error) => refuse(path, "faucet.keyFile", e.message));
  const address = ed25519AddressOfSeed(faucetSeed);
  const funded = file.config.genesis.outputs.some((g) => {
    const owner = allocationOwner(g.output);
    return owner !== undefined && bytesEqual(owner.pubKeyHash, address.pubKeyHash);
  });
  if (!funded) {
    refuse(
      path,
      "faucet.keyFile",
      `the faucet's address ${addressToBech32(address, file.config.protocol.bech32Hrp)} has no allocation`,
    );
  }
  return { config: file.config, faucetSeed };
}

/** Checks the file's JSON (no file reads): the network description and the faucet key file's name. */
export function networkFileFromJson(
  json: unknown,
  source = "network file",
): { config: NetworkConfig; faucetKeyFile?: string } {
  try {
    const o = expectObject(json, "network", FIELDS, ["faucet", "dev", "devAccounts"]);
    const networkName = expectString(o.networkName, "networkName");
    if (networkName.length < 1 || networkName.length > 255 || !/^[\x20-\x7e]+$/.test(networkName)) {
      refuse(source, "networkName", "must be 1..255 printable ASCII characters");
    }
    const hrp = expectString(o.bech32Hrp, "bech32Hrp");
    // BIP-173: 1..83 characters; lower case letters and digits keep addresses readable
    if (!/^[a-z][a-z0-9]{0,82}$/.test(hrp)) {
      refuse(source, "bech32Hrp", `"${hrp}" must be 1..83 lower-case letters and digits, starting with a letter`);
    }
    const tokenSupply = expectU64String(o.tokenSupply, "tokenSupply");
    if (tokenSupply === 0n) refuse(source, "tokenSupply", "must be above 0");
    const protocolVersion = expectU8(o.protocolVersion, "protocolVersion");
    if (protocolVersion !== STARDUST_PROTOCOL_VERSION) {
      refuse(
        source,
        "protocolVersion",
        `this node speaks protocol version ${STARDUST_PROTOCOL_VERSION}, got ${protocolVersion}`,
      );
    }
    const rent = expectObject(o.rentStructure, "rentStructure", ["vByteCost", "vByteFactorData", "vByteFactorKey"]);
    const protocol: ProtocolParameters = {
      protocolVersion,
      networkName,
      bech32Hrp: hrp,
      minPowScore: expectU32(o.minPowScore, "minPowScore"),
      belowMaxDepth: expectInt(o.belowMaxDepth, "belowMaxDepth", 1, 0xff),
      rentStructure: {
        vByteCost: expectU32(rent.vByteCost, "rentStructure.vByteCost"),
        vByteFactorData: expectU8(rent.vByteFactorData, "rentStructure.vByteFactorData"),
        vByteFactorKey: expectU8(rent.vByteFactorKey, "rentStructure.vByteFactorKey"),
      },
      tokenSupply,
    };
    const milestoneIntervalMs = expectInt(o.milestoneIntervalMs, "milestoneIntervalMs", 100, 3_600_000);
    const dev = o.dev === undefined ? false : expectBool(o.dev, "dev");
    const devAccounts = readDevAccounts(o.devAccounts, source);
    const allocations = readAllocations(o.allocations, devAccounts.allocations, protocol, source);
    const c = expectObject(o.coordinator, "coordinator", ["publicKeys", "threshold"]);
    const keys = expectArray(c.publicKeys, "coordinator.publicKeys").map((k, i) =>
      expectHex(k, `coordinator.publicKeys[${i}]`, 32),
    );
    // TIP-29: a milestone carries 1..255 signatures, one per key
    if (keys.length < 1 || keys.length > 255) refuse(source, "coordinator.publicKeys", "1..255 keys");
    keys.forEach((k, i) => {
      const first = keys.findIndex((x) => bytesEqual(x, k));
      if (first !== i) refuse(source, `coordinator.publicKeys[${i}]`, `duplicate of coordinator.publicKeys[${first}]`);
    });
    const threshold = expectInt(c.threshold, "coordinator.threshold", 1, 255);
    if (threshold > keys.length) {
      refuse(source, "coordinator.threshold", `${threshold} is above the number of keys (${keys.length})`);
    }
    let faucetKeyFile: string | undefined;
    if (o.faucet !== undefined) {
      const f = expectObject(o.faucet, "faucet", ["keyFile"]);
      faucetKeyFile = expectString(f.keyFile, "faucet.keyFile");
    }
    const config: NetworkConfig = {
      networkName,
      protocol,
      coordinatorPublicKeys: keys,
      coordinatorThreshold: threshold,
      milestoneIntervalMs,
      genesis: { kind: "custom", outputs: genesisOutputs(allocations) },
      peers: [],
      ...(dev ? { dev: true } : {}),
      ...(devAccounts.spec ? { devAccounts: devAccounts.spec } : {}),
    };
    return faucetKeyFile === undefined ? { config } : { config, faucetKeyFile };
  } catch (e) {
    if (isCodecError(e)) throw new LedgerNodeError(NodeErrorCode.InvalidNetworkFile, `${source}: ${e.message}`);
    throw e;
  }
}

/** The funded accounts a network file asks for (`devAccounts`): how they are derived, and their allocations. */
function readDevAccounts(
  json: unknown,
  source: string,
): { spec?: NonNullable<NetworkConfig["devAccounts"]>; allocations: Allocation[] } {
  if (json === undefined) return { allocations: [] };
  const d = expectObject(json, "devAccounts", ["count", "amount"], ["mnemonic", "coinType"]);
  const count = expectInt(d.count, "devAccounts.count", 1, MAX_DEV_ACCOUNTS);
  const amount = expectU64String(d.amount, "devAccounts.amount");
  const mnemonic = d.mnemonic === undefined ? DEFAULT_DEV_MNEMONIC : expectString(d.mnemonic, "devAccounts.mnemonic");
  const coinType =
    d.coinType === undefined ? SHIMMER_COIN_TYPE : expectInt(d.coinType, "devAccounts.coinType", 0, 0x7fffffff);
  let accounts: DevAccount[];
  try {
    accounts = deriveDevAccounts({ mnemonic, count, coinType });
  } catch (e) {
    if (isNodeError(e)) refuse(source, "devAccounts.mnemonic", e.message);
    throw e;
  }
  return {
    spec: { mnemonic: normalMnemonic(mnemonic), count, coinType },
    allocations: accounts.map((a) => ({ address: a.address, amount })),
  };
}

function readAllocations(
  json: unknown,
  devAccounts: Allocation[],
  protocol: ProtocolParameters,
  source: string,
): Allocation[] {
  const list = expectArray(json, "allocations");
  if (list.length < 1 || list.length + devAccounts.length > MAX_ALLOCATIONS) {
    refuse(
      source,
      "allocations",
      `1..${MAX_ALLOCATIONS} allocations with the dev accounts, got ${list.length} and ${devAccounts.length}`,
    );
  }
  const seen = new Map<string, number>();
  let total = 0n;
  const allocations = list.map((x, i): Allocation => {
    const field = `allocations[${i}]`;
    const a = expectObject(x, field, ["address", "amount"]);
    const address = addressFromBech32(
      expectString(a.address, `${field}.address`),
      protocol.bech32Hrp,
      `${field}.address`,
    );
    if (address.type !== AddressType.Ed25519) refuse(source, `${field}.address`, "must be an Ed25519 address");
    const key = toHex(address.pubKeyHash);
    const earlier = seen.get(key);
    if (earlier !== undefined) refuse(source, `${field}.address`, `already allocated in allocations[${earlier}]`);
    seen.set(key, i);
    const amount = expectU64String(a.amount, `${field}.amount`);
    const deposit = minStorageDeposit(allocationOutput({ address, amount }), protocol.rentStructure);
    if (amount < deposit) refuse(source, `${field}.amount`, `${amount} is below the storage deposit of ${deposit}`);
    total += amount;
    return { address, amount };
  });
  devAccounts.forEach((a, i) => {
    const field = `devAccounts[${i}]`;
    const earlier = seen.get(toHex(a.address.pubKeyHash));
    if (earlier !== undefined) refuse(source, field, `its address is already allocated in allocations[${earlier}]`);
    const deposit = minStorageDeposit(allocationOutput(a), protocol.rentStructure);
    if (a.amount < deposit)
      refuse(source, "devAccounts.amount", `${a.amount} is below the storage deposit of ${deposit}`);
    total += a.amount;
    allocations.push(a);
  });
  if (total !== protocol.tokenSupply) {
    refuse(
      source,
      "allocations",
      `amounts${devAccounts.length > 0 ? " and devAccounts" : ""} sum to ${total}, not the token supply ${protocol.tokenSupply}`,
    );
  }
  return allocations;
}
