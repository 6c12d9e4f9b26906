import { encodeOutput } from "../codec/outputs/output.js";
import { decodeProtocolParameters, encodeProtocolParameters } from "../codec/protocolParameters.js";
import type { ProtocolParameters } from "../codec/types.js";
import type { NetworkConfig } from "../network/index.js";
import {
  EMPTY_VALUE,
  encodeOutputRecord,
  encodeU32,
  type KvStore,
  NodeStateKey,
  Repositories,
  SCHEMA_VERSION,
  StorageErrorCode,
  type WriteBatch,
} from "../storage/index.js";
import { NULL_BLOCK_ID } from "../tangle/tangle.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";

/**
 * First start and every later start: an empty database gets the network's genesis (protocol
 * parameters, the genesis outputs, the null block as solid entry point) in one batch; a
 * database of another network or schema is refused. Every node of a network writes the same
 * genesis from the network's description (network.json), so a follower needs nothing else. The
 * secrets live in key files beside the database (keyFiles.ts), not in it.
 */
export async function initDatabase(
  store: KvStore,
  network: Pick<NetworkConfig, "protocol" | "genesis">,
): Promise<{ created: boolean; protocolParameters: ProtocolParameters }> {
  const params = network.protocol;
  const db = Repositories.of(store);
  const name = await db.nodeState.get(NodeStateKey.NetworkName);
  if (name) {
    const stored = new TextDecoder().decode(name);
    if (stored !== params.networkName) {
      throw new LedgerNodeError(
        StorageErrorCode.IncompatibleDatabase,
        `the data directory belongs to network "${stored}", this node runs "${params.networkName}"`,
      );
    }
    const version = await db.nodeState.getU32(NodeStateKey.SchemaVersion);
    if (version !== SCHEMA_VERSION) {
      throw new LedgerNodeError(StorageErrorCode.IncompatibleDatabase, "the data directory has another schema version");
    }
    const paramBytes = await db.protocolParameters.get(0);
    const storedParams = paramBytes ? decodeProtocolParameters(paramBytes) : params;
    return {
      created: false,
      // on the dev network the min PoW score is a node setting; everything else is fixed at genesis
      protocolParameters:
        network.genesis.kind === "dev" ? { ...storedParams, minPowScore: params.minPowScore } : storedParams,
    };
  }
  const batch = store.batch();
  writeGenesis(db, batch, network);
  await batch.write({ sync: true });
  return { created: true, protocolParameters: params };
}

/** Adds the network's genesis to `batch`: what a fresh database holds before its first milestone. */
export function writeGenesis(
  db: Repositories,
  batch: WriteBatch,
  network: Pick<NetworkConfig, "protocol" | "genesis">,
): void {
  const params = network.protocol;
  db.nodeState.putU32(batch, NodeStateKey.SchemaVersion, SCHEMA_VERSION);
  db.nodeState.put(batch, NodeStateKey.NetworkName, new TextEncoder().encode(params.networkName));
  db.nodeState.putU32(batch, NodeStateKey.LedgerIndex, 0);
  db.protocolParameters.put(batch, 0, encodeProtocolParameters(params));
  db.solidEntryPoints.put(batch, NULL_BLOCK_ID, encodeU32(0));
  for (const g of network.genesis.outputs) {
    db.outputs.put(
      batch,
      g.outputId,
      encodeOutputRecord({
        blockId: NULL_BLOCK_ID,
        bookedIndex: 0,
        bookedTimestamp: 0,
        proof: EMPTY_VALUE, // no creating transaction: the genesis form
        outputBytes: encodeOutput(g.output),
      }),
    );
    db.unspent.add(batch, g.outputId);
  }
}
