import { OUTPUT_ID_LENGTH } from "../codec/ids.js";
import {
  INDEXER_STATE_KEY,
  indexerChainKey,
  indexerFieldList,
  indexerFieldPrefix,
  indexerOutputPrefix,
} from "../storage/index.js";
import type { FieldValue, IndexedOutputType } from "./facts.js";

/**
 * The indexer's keys in its own terms (output kinds, field values, listing positions), built by
 * `src/storage/buckets.ts`, where the layouts are documented with the `Bucket` enum. Every listing key ends in `createdAt u32 BE ‖ outputId[34]`, the
 * position a page cursor names, so one cursor format serves every index.
 */

/** Length of a listing position: createdAt u32 BE ‖ outputId[34]. */
export const POSITION_LENGTH = 4 + OUTPUT_ID_LENGTH;

/** Where a listing entry sits in booking order. */
export interface Position {
  createdAt: number;
  outputId: Uint8Array;
}

export { INDEXER_STATE_KEY };

/** `createdAt u32 BE ‖ outputId`. */
export function positionBytes(p: Position): Uint8Array {
  // byte by byte: a DataView would move the small array's bytes off V8's heap (5 % of a rebuild)
  const out = new Uint8Array(POSITION_LENGTH);
  const t = p.createdAt;
  out[0] = t >>> 24;
  out[1] = (t >>> 16) & 0xff;
  out[2] = (t >>> 8) & 0xff;
  out[3] = t & 0xff;
  out.set(p.outputId, 4);
  return out;
}

/** The position at the end of a listing key. */
export function positionOfKey(key: Uint8Array): Position {
  const at = key.length - POSITION_LENGTH;
  return {
    createdAt: new DataView(key.buffer, key.byteOffset + at, 4).getUint32(0, false),
    outputId: key.slice(at + 4),
  };
}

/** `IndexerChain ‖ outputType ‖ chainId`. */
export function chainKey(type: IndexedOutputType, chainId: Uint8Array): Uint8Array {
  return indexerChainKey(type, chainId);
}

/** Prefix of every IndexerOutput entry of one output kind. */
export function outputListPrefix(type: IndexedOutputType): Uint8Array {
  return indexerOutputPrefix(type);
}

/** The list of one output kind with this field value: `outputType ‖ field ‖ len ‖ value` (fieldLists.ts). */
export function fieldList(type: IndexedOutputType, f: FieldValue): Uint8Array {
  return indexerFieldList(type, f.field, f.value);
}

/** Prefix of every IndexerField chunk of one list. */
export function fieldListPrefix(type: IndexedOutputType, f: FieldValue): Uint8Array {
  return indexerFieldPrefix(fieldList(type, f));
}

/** A listing key: its prefix (`outputListPrefix`) followed by the position. */
export function listingKey(prefix: Uint8Array, p: Position): Uint8Array {
  const key = new Uint8Array(prefix.length + POSITION_LENGTH);
  key.set(prefix);
  key.set(positionBytes(p), prefix.length);
  return key;
}
