/**
 * A full TIP-35 snapshot of N unspent basic outputs, for the loads of `bench scale` and the
 * tests of a large load. It is written by the node's own writer from a real ledger: a dev node
 * (no funded accounts) confirms milestone 1, signed by its coordinator key; the genesis output is
 * then replaced in its LevelDB by N outputs that share the token supply, booked at milestone 1
 * (written directly in batches, not through white-flag), and `writeFullSnapshot` streams them
 * into the file, in output ID order as every writer's walk of its ledger. One target address
 * owns 100 of the outputs, spread over the ledger; the others belong to N/10 addresses, ten
 * outputs each.
 */
import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { encodeOutput } from "../../src/codec/outputs/output.js";
import type { BasicOutput } from "../../src/codec/types.js";
import { devProtocolParameters, GENESIS_OUTPUT_ID } from "../../src/node/devNetwork.js";
import { writeFullSnapshot } from "../../src/snapshot/index.js";
import {
  Bucket,
  defaultKvStoreOptions,
  EMPTY_VALUE,
  encodeOutputRecord,
  idKey,
  KvStore,
  Repositories,
} from "../../src/storage/index.js";
import { openNode } from "./node.js";

const params = devProtocolParameters(0);
const BATCH = 10_000;
/** Outputs the target address of the indexer query owns. */
export const TARGET_OUTPUTS = 100;
const sha256 = (s: string) => new Uint8Array(createHash("sha256").update(s).digest());
export const TARGET_HASH = sha256("scale target owner");

/** The owner of output `i` of `n`: the target for 100 of them, spread evenly, else one of n/10 addresses. */
function ownerOf(i: number, n: number): Uint8Array {
  const every = Math.max(1, Math.floor(n / TARGET_OUTPUTS));
  if (i % every === 0 && i / every < TARGET_OUTPUTS) return TARGET_HASH;
  return sha256(`scale owner ${i % Math.max(1, Math.floor(n / 10))}`);
}

/** Writes a full snapshot of `n` unspent outputs to `filePath` (a source database under `workDir`, removed after). */
export async function generateSnapshot(workDir: string, n: number, filePath: string): Promise<void> {
  const dir = join(workDir, `source-${n}`);
  const source = await openNode(dir, { faucet: false, p2pPort: 0 });
  await source.coordinator.issueMilestone();
  const booked = source.tangle.latestMilestone;
  await source.close();
  const store = await KvStore.open({ ...defaultKvStoreOptions, path: join(dir, "db") });
  try {
    const db = Repositories.of(store);
    const blockId = (await db.milestones.get(booked.index))!.blockId;
    const share = params.tokenSupply / BigInt(n);
    let batch = store
      .batch()
      .del(idKey(Bucket.Output, GENESIS_OUTPUT_ID))
      .del(idKey(Bucket.Unspent, GENESIS_OUTPUT_ID));
    for (let i = 0; i < n; i++) {
      const id = new Uint8Array(34);
      id.set(sha256(`scale tx ${Math.floor(i / 100)}`));
      id[32] = i % 100;
      const output: BasicOutput = {
        type: 3,
        amount: i === 0 ? params.tokenSupply - share * BigInt(n - 1) : share,
        nativeTokens: [],
        unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash: ownerOf(i, n) } }],
        features: [],
      };
      const record = {
        blockId,
        bookedIndex: booked.index,
        bookedTimestamp: booked.timestamp,
        proof: EMPTY_VALUE,
        outputBytes: encodeOutput(output),
      };
      batch.put(idKey(Bucket.Output, id), encodeOutputRecord(record)).put(idKey(Bucket.Unspent, id), EMPTY_VALUE);
      if ((i + 1) % BATCH === 0 || i === n - 1) {
        await batch.write({ sync: false });
        batch = store.batch();
      }
    }
    await writeFullSnapshot(store, booked.index, filePath);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
