import { randomBytes } from "node:crypto";
import { encodeOutput } from "../codec/outputs/output.js";
import { decodeProtocolParameters, encodeProtocolParameters } from "../codec/protocolParameters.js";
import type { ProtocolParameters } from "../codec/types.js";
import {
  Bucket,
  decodeU32,
  EMPTY_VALUE,
  encodeOutputRecord,
  encodeU32,
  idKey,
  indexKey,
  type KvStore,
  NodeStateKey,
  nodeStateKey,
  SCHEMA_VERSION,
  StorageErrorCode,
  type WriteBatch,
} from "../storage/index.js";
import { NULL_BLOCK_ID } from "../tangle/tangle.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { DEV_NETWORK_NAME, devGenesisOutput, GENESIS_OUTPUT_ID } from "./devNetwork.js";

/**
 * First start and every later start: an empty database gets the dev genesis (protocol
 * parameters, the genesis output, the null block as solid entry point, a fresh coordinator key
 * and JWT secret) in one batch; a database of another network or schema is refused. A node
 * joining an existing network (a follower) gets the same genesis, which is deterministic, but
 * no coordinator key: it confirms the milestones it receives.
 */

export interface NodeSecrets {
  /** The coordinator's Ed25519 seed; absent on a follower. */
  coordinatorSeed?: Uint8Array;
  jwtSecret: Uint8Array;
}

export interface InitDatabaseOptions {
  /** Write a fresh coordinator seed with the genesis (a node that starts a network); default true. */
  coordinator: boolean;
}

export async function initDatabase(
  store: KvStore,
  params: ProtocolParameters,
  options: InitDatabaseOptions = { coordinator: true },
): Promise<{ created: boolean; protocolParameters: ProtocolParameters; secrets: NodeSecrets }> {
  const name = await store.get(nodeStateKey(NodeStateKey.NetworkName));
  if (name) {
    const stored = new TextDecoder().decode(name);
    if (stored !== params.networkName) {
      throw new LedgerNodeError(
        StorageErrorCode.IncompatibleDatabase,
        `the data directory belongs to network "${stored}", this node runs "${params.networkName}"`,
      );
    }
    const version = await store.get(nodeStateKey(NodeStateKey.SchemaVersion));
    if (!version || decodeU32(version, "schemaVersion") !== SCHEMA_VERSION) {
      throw new LedgerNodeError(StorageErrorCode.IncompatibleDatabase, "the data directory has another schema version");
    }
    const paramBytes = await store.get(indexKey(Bucket.ProtocolParameters, 0));
    const stored_params = paramBytes ? decodeProtocolParameters(paramBytes) : params;
    return {
      created: false,
      // the min PoW score is a node setting on the dev network; the rest is fixed at genesis
      protocolParameters: { ...stored_params, minPowScore: params.minPowScore },
      secrets: await ensureSecrets(store, options),
    };
  }
  if (params.networkName !== DEV_NETWORK_NAME) {
    throw new LedgerNodeError(
      StorageErrorCode.IncompatibleDatabase,
      `the dev genesis is only for network "${DEV_NETWORK_NAME}"`,
    );
  }
  const secrets = freshSecrets(options);
  const batch = store.batch();
  putSecrets(batch, secrets);
  await batch
    .put(nodeStateKey(NodeStateKey.SchemaVersion), encodeU32(SCHEMA_VERSION))
    .put(nodeStateKey(NodeStateKey.NetworkName), new TextEncoder().encode(params.networkName))
    .put(nodeStateKey(NodeStateKey.LedgerIndex), encodeU32(0))
    .put(indexKey(Bucket.ProtocolParameters, 0), encodeProtocolParameters(params))
    .put(idKey(Bucket.SolidEntryPoint, NULL_BLOCK_ID), encodeU32(0))
    .put(
      idKey(Bucket.Output, GENESIS_OUTPUT_ID),
      encodeOutputRecord({
        blockId: NULL_BLOCK_ID,
        bookedIndex: 0,
        bookedTimestamp: 0,
        proof: EMPTY_VALUE, // no creating transaction: the genesis form
        outputBytes: encodeOutput(devGenesisOutput()),
      }),
    )
    .put(idKey(Bucket.Unspent, GENESIS_OUTPUT_ID), EMPTY_VALUE)
    .write();
  return { created: true, protocolParameters: params, secrets };
}

/** A fresh JWT secret, and a fresh coordinator seed for a node that starts a network. */
function freshSecrets(options: InitDatabaseOptions): NodeSecrets {
  return {
    ...(options.coordinator ? { coordinatorSeed: new Uint8Array(randomBytes(32)) } : {}),
    jwtSecret: new Uint8Array(randomBytes(32)),
  };
}

function putSecrets(batch: WriteBatch, secrets: NodeSecrets): void {
  if (secrets.coordinatorSeed) batch.put(nodeStateKey(NodeStateKey.CoordinatorSeed), secrets.coordinatorSeed);
  batch.put(nodeStateKey(NodeStateKey.JwtSecret), secrets.jwtSecret);
}

/**
 * The secrets of an existing database; those it lacks (a database filled from a snapshot, which
 * carries a ledger only) are made now, as for a fresh one.
 */
async function ensureSecrets(store: KvStore, options: InitDatabaseOptions): Promise<NodeSecrets> {
  const seed = await store.get(nodeStateKey(NodeStateKey.CoordinatorSeed));
  const jwtSecret = await store.get(nodeStateKey(NodeStateKey.JwtSecret));
  if (jwtSecret && (seed || !options.coordinator)) return { ...(seed ? { coordinatorSeed: seed } : {}), jwtSecret };
  const fresh = freshSecrets({ coordinator: options.coordinator && !seed });
  const secrets: NodeSecrets = {
    ...(seed ? { coordinatorSeed: seed } : fresh.coordinatorSeed ? { coordinatorSeed: fresh.coordinatorSeed } : {}),
    jwtSecret: jwtSecret ?? fresh.jwtSecret,
  };
  const batch = store.batch();
  putSecrets(batch, secrets);
  await batch.write({ sync: true });
  return secrets;
}
