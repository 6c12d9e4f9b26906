import { access, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { addressToBech32 } from "../codec/address.js";
import { bytesEqual, toHex } from "../codec/hex.js";
import { ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import { networkConfigPath, writeNetworkConfig } from "../network/index.js";
import { isNodeError, NodeErrorCode } from "../node/errors.js";
import { initDatabase } from "../node/initDatabase.js";
import {
  FAUCET_KEY_FILE,
  freshSecret,
  JWT_KEY_FILE,
  readKeyFile,
  writeCoordinatorSeeds,
  writeKeyFile,
  writeNamedKeyFile,
} from "../node/keyFiles.js";
import { ed25519AddressOfSeed, type NetworkFile, readNetworkFile } from "../node/networkFile.js";
import { defaultKvStoreOptions, KvStore } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { command, type Values } from "./parse.js";
import { runCommand } from "./run.js";
import { repeated, text } from "./values.js";

/**
 * `npm start -- init --network <file> --data-dir <dir> [--coordinator-key <key file>]…`:
 * creates a network of one's own from a network file (node/networkFile.ts): everything is read
 * and checked first, then the data directory gets the network description followers join with
 * (`network.json`), the key files (`keys/`) and the genesis ledger. With coordinator key files
 * (at least the network's threshold of them, each one of its public keys) the directory's
 * node is the network's coordinator; without, it follows the network.
 *
 * `npm start -- keygen --out <file> [--hrp <hrp>]`: writes a fresh Ed25519 key file and prints
 * its public key and address, for a network file's coordinator keys, allocations or faucet.
 */

export const initCommand = command({
  name: "init",
  about: [
    "Creates a network from a network file (schema: README, Your own network) in <dir>: the",
    "genesis, network.json for followers, and the key files. Give the coordinator's key files",
    "(at least its threshold) to make <dir> the coordinator's; then start it with",
    "  npm start -- --data-dir <dir>",
    "Followers join with: npm start -- --network-config <dir>/network.json --peer <addr> --data-dir <theirs>",
  ],
  flags: [
    { key: "network", name: "network", value: text("<network file>"), required: true, help: "the network file" },
    { key: "dataDir", name: "data-dir", value: text("<dir>"), required: true, help: "the new data directory" },
    {
      key: "coordinatorKeys",
      name: "coordinator-key",
      value: repeated("<key file>"),
      default: [],
      help: "a coordinator key file; repeat the flag for more",
    },
  ],
});

export const keygenCommand = command({
  name: "keygen",
  about: ["Writes a fresh Ed25519 key (hex seed, owner-only) and prints its public key and address."],
  flags: [
    { key: "out", name: "out", value: text("<key file>"), required: true, help: "the key file to write" },
    { key: "hrp", name: "hrp", value: text("<bech32 HRP>"), default: "tst", help: "bech32 HRP of the address printed" },
  ],
});

type InitArgs = Values<typeof initCommand.flags>;

/** What `init` will write, all of it read and checked before anything is. */
interface InitPlan {
  file: NetworkFile;
  coordinatorSeeds: Uint8Array[];
}

async function planInit(args: InitArgs): Promise<InitPlan> {
  const file = await readNetworkFile(args.network);
  const { coordinatorPublicKeys: keys, coordinatorThreshold: threshold } = file.config;
  const coordinatorSeeds: Uint8Array[] = [];
  for (const path of args.coordinatorKeys) {
    const seed = await readKeyFile(path);
    const publicKey = ed25519KeyPairFromSeed(seed).publicKey;
    if (!keys.some((k) => bytesEqual(k, publicKey))) {
      throw new LedgerNodeError(
        NodeErrorCode.InvalidKeyFile,
        `${path}: its public key ${toHex(publicKey)} is not one of the network's coordinator.publicKeys`,
      );
    }
    if (coordinatorSeeds.some((s) => bytesEqual(s, seed))) {
      throw new LedgerNodeError(NodeErrorCode.InvalidKeyFile, `${path}: the same key is given twice`);
    }
    coordinatorSeeds.push(seed);
  }
  if (coordinatorSeeds.length > 0 && coordinatorSeeds.length < threshold) {
    throw new LedgerNodeError(
      NodeErrorCode.InvalidKeyFile,
      `a milestone needs ${threshold} signatures: give at least ${threshold} --coordinator-key files, got ${coordinatorSeeds.length}`,
    );
  }
  await assertFreshDataDir(args.dataDir);
  return { file, coordinatorSeeds };
}

async function assertFreshDataDir(dataDir: string): Promise<void> {
  const entries = await readdir(dataDir).catch(() => [] as string[]);
  if (entries.length > 0) {
    throw new LedgerNodeError(
      NodeErrorCode.DataDirInUse,
      `${dataDir} is not empty: init creates a network in a new directory`,
    );
  }
}

/** Writes the plan: key files, network.json, then the genesis (the database last: its presence means done). */
async function writeInit(dataDir: string, plan: InitPlan): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  if (plan.coordinatorSeeds.length > 0) await writeCoordinatorSeeds(dataDir, plan.coordinatorSeeds);
  if (plan.file.faucetSeed) await writeNamedKeyFile(dataDir, FAUCET_KEY_FILE, plan.file.faucetSeed);
  await writeNamedKeyFile(dataDir, JWT_KEY_FILE, freshSecret());
  await writeNetworkConfig(networkConfigPath(dataDir), plan.file.config);
  const store = await KvStore.open({ ...defaultKvStoreOptions, path: join(dataDir, "db") });
  try {
    await initDatabase(store, plan.file.config);
  } finally {
    await store.close();
  }
}

/** Runs `init`; returns the process exit code. */
export async function runInitCommand(argv: readonly string[]): Promise<number> {
  return runCommand(initCommand, argv, async (args) => {
    try {
      const plan = await planInit(args);
      await writeInit(args.dataDir, plan);
      const c = plan.file.config;
      console.log(`network "${c.networkName}" created in ${args.dataDir}`);
      console.log(`  ${c.genesis.outputs.length} genesis outputs, supply ${c.protocol.tokenSupply}`);
      console.log(`  coordinator: ${c.coordinatorThreshold} of ${c.coordinatorPublicKeys.length} keys per milestone`);
      console.log(
        plan.coordinatorSeeds.length > 0
          ? `  this directory holds ${plan.coordinatorSeeds.length} coordinator keys: start it with npm start -- --data-dir ${args.dataDir}`
          : "  this directory holds no coordinator key: its node follows the network",
      );
      if (plan.file.faucetSeed) {
        console.log(`  faucet: ${addressToBech32(ed25519AddressOfSeed(plan.file.faucetSeed), c.protocol.bech32Hrp)}`);
      }
      console.log(`  followers join with ${networkConfigPath(args.dataDir)}`);
      return 0;
    } catch (e) {
      if (!isNodeError(e)) throw e;
      console.error(`error: ${e.message}; nothing was written`);
      return 1;
    }
  });
}

/** Runs `keygen`; returns the process exit code. */
export async function runKeygenCommand(argv: readonly string[]): Promise<number> {
  return runCommand(keygenCommand, argv, async ({ out, hrp }) => {
    const exists = await access(out).then(
      () => true,
      () => false,
    );
    if (exists) {
      console.error(`error: ${out} exists; keygen never overwrites a key`);
      return 1;
    }
    const seed = freshSecret();
    await writeKeyFile(out, seed);
    console.log(
      JSON.stringify({
        keyFile: out,
        publicKey: toHex(ed25519KeyPairFromSeed(seed).publicKey),
        address: addressToBech32(ed25519AddressOfSeed(seed), hrp),
      }),
    );
    return 0;
  });
}
