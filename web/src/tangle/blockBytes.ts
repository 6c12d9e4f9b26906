import { blake2b } from "@noble/hashes/blake2.js";

/**
 * What the live tangle reads of a block as the `blocks` topic sends it (README, Event API: the
 * block's bytes, TIP-24's layout): its ID, its parents, its payload's type and, for a milestone,
 * its index. Nothing else is decoded: the page draws the DAG, the explorer shows the rest.
 *
 * TIP-24 block: protocol version (u8), parents count (u8), parents (32 bytes each, 1 to 8),
 * payload length (u32 LE), payload (its type is its first u32 LE), nonce (u64 LE). A milestone
 * payload (TIP-29) has its index as the u32 LE right after its type. The block ID is
 * BLAKE2b-256 of the whole block (TIP-24), computed here with @noble/hashes' pure-JS BLAKE2b:
 * synchronous and a few kB, so the page needs neither WebAssembly nor the explorer's codec chunk
 * for the thousands of blocks a second it may receive.
 */

/** TIP-24's bounds on the parents. */
const MIN_PARENTS = 1;
const MAX_PARENTS = 8;
/** TIP-24's maximum block size: a payload claiming more is not a block. */
const MAX_BLOCK_BYTES = 32_768;

/** Payload types of TIP-24 (tagged data TIP-23, transaction TIP-20, milestone TIP-29). */
export const PayloadType = { TaggedData: 5, Transaction: 6, Milestone: 7 } as const;

export interface BlockSummary {
  /** The block ID, 0x-prefixed lower-case hex. */
  id: string;
  /** The parents' block IDs, as the block lists them. */
  parents: string[];
  /** The payload's type; null for a block without payload. */
  payloadType: number | null;
  /** A milestone's index (payload type 7). */
  milestoneIndex?: number;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** `bytes[from, from + length)` as 0x-prefixed hex. */
function hexOf(bytes: Uint8Array, from: number, length: number): string {
  let s = "0x";
  for (let i = from; i < from + length; i++) s += HEX[bytes[i]!];
  return s;
}

/** The block's ID and what the graph needs of it; throws a message naming the field when the bytes are not a block. */
export function readBlock(bytes: Uint8Array): BlockSummary {
  if (bytes.length > MAX_BLOCK_BYTES) throw new Error(`a block of ${bytes.length} bytes (at most ${MAX_BLOCK_BYTES})`);
  if (bytes.length < 2) throw new Error("block: too short for its parents count");
  const count = bytes[1]!;
  if (count < MIN_PARENTS || count > MAX_PARENTS) throw new Error(`block.parents: ${count} (1 to 8)`);
  const payloadAt = 2 + 32 * count;
  // the payload length, and the nonce after the payload
  if (bytes.length < payloadAt + 4 + 8) throw new Error("block: too short for its parents, payload length and nonce");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const payloadLength = view.getUint32(payloadAt, true);
  if (payloadAt + 4 + payloadLength + 8 !== bytes.length) throw new Error("block.payload: its length does not match");
  const parents: string[] = [];
  for (let i = 0; i < count; i++) parents.push(hexOf(bytes, 2 + 32 * i, 32));
  let payloadType: number | null = null;
  let milestoneIndex: number | undefined;
  if (payloadLength > 0) {
    if (payloadLength < 4) throw new Error("block.payload: too short for its type");
    payloadType = view.getUint32(payloadAt + 4, true);
    if (payloadType === PayloadType.Milestone) {
      if (payloadLength < 8) throw new Error("block.payload: too short for the milestone's index");
      milestoneIndex = view.getUint32(payloadAt + 8, true);
    }
  }
  const id = hexOf(blake2b(bytes, { dkLen: 32 }), 0, 32);
  return milestoneIndex === undefined ? { id, parents, payloadType } : { id, parents, payloadType, milestoneIndex };
}
