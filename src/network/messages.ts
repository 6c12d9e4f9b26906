import { MAX_BLOCK_LENGTH } from "../codec/block.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { type NetworkError, NetworkErrorCode } from "./errors.js";

/**
 * The request/response protocol between peers (one libp2p stream per request; every message is
 * one length-prefixed frame: a type byte, then the body). The message kinds follow Hornet's
 * gossip protocol (block, milestone request, block request, heartbeat); blocks themselves travel
 * on gossipsub, this protocol fills gaps and catches up.
 *
 *   type  name               body                                      answer
 *   0x01  MilestoneRequest   index u32                                 Block* ConeEnd, or NotFound
 *   0x02  Block              the block's bytes (TIP-24)                 -
 *   0x03  BlockRequest       blockId[32]                               Block, or NotFound
 *   0x04  Heartbeat          solid u32 ‖ pruned u32 ‖ latest u32 ‖     -
 *                            connectedPeers u8 ‖ syncedPeers u8
 *   0x05  NotFound           (empty)                                   -
 *   0x06  ConeEnd            index u32 ‖ blocks u32                    -
 *
 * Integers are little-endian like the ledger's wire formats. A MilestoneRequest is answered with
 * the milestone's whole cone: every block it newly referenced, parents before children, then
 * the milestone block, then ConeEnd naming how many blocks were sent, so the asker can solidify
 * and confirm the milestone from one answer.
 */

export enum MessageType {
  MilestoneRequest = 0x01,
  Block = 0x02,
  BlockRequest = 0x03,
  Heartbeat = 0x04,
  NotFound = 0x05,
  ConeEnd = 0x06,
}

/** What a node tells its peers about its ledger (TIP-less; Hornet's heartbeat fields). */
export interface Heartbeat {
  /** The ledger index: the last milestone this node confirmed. */
  solidMilestoneIndex: number;
  /** The oldest milestone whose data it still keeps (its pruning index). */
  prunedMilestoneIndex: number;
  /** The newest milestone it knows of, confirmed or not. */
  latestMilestoneIndex: number;
  connectedPeers: number;
  syncedPeers: number;
}

export type Message =
  | { type: MessageType.MilestoneRequest; index: number }
  | { type: MessageType.Block; bytes: Uint8Array }
  | { type: MessageType.BlockRequest; blockId: Uint8Array }
  | { type: MessageType.Heartbeat; heartbeat: Heartbeat }
  | { type: MessageType.NotFound }
  | { type: MessageType.ConeEnd; index: number; blocks: number };

/** Largest frame: a block of the maximum size and its type byte. */
export const MAX_MESSAGE_LENGTH = MAX_BLOCK_LENGTH + 1;

/**
 * The largest milestone cone a node sends or takes as one answer: blocks, and their bytes in all.
 * A cone this size is far beyond what a milestone interval gathers at full intake (a few
 * thousand blocks); the limit is there so that one peer's answer cannot fill this node's memory.
 */
export const MAX_CONE_BLOCKS = 20_000;
export const MAX_CONE_BYTES = 16 * 1024 * 1024;

const HEARTBEAT_LENGTH = 14;

function malformed(message: string): NetworkError {
  return new LedgerNodeError(NetworkErrorCode.MalformedMessage, message);
}

export function encodeMessage(m: Message): Uint8Array {
  switch (m.type) {
    case MessageType.MilestoneRequest: {
      const out = new Uint8Array(5);
      out[0] = m.type;
      new DataView(out.buffer).setUint32(1, m.index, true);
      return out;
    }
    case MessageType.Block: {
      const out = new Uint8Array(1 + m.bytes.length);
      out[0] = m.type;
      out.set(m.bytes, 1);
      return out;
    }
    case MessageType.BlockRequest: {
      const out = new Uint8Array(33);
      out[0] = m.type;
      out.set(m.blockId, 1);
      return out;
    }
    case MessageType.Heartbeat: {
      const out = new Uint8Array(1 + HEARTBEAT_LENGTH);
      const v = new DataView(out.buffer);
      const h = m.heartbeat;
      out[0] = m.type;
      v.setUint32(1, h.solidMilestoneIndex, true);
      v.setUint32(5, h.prunedMilestoneIndex, true);
      v.setUint32(9, h.latestMilestoneIndex, true);
      v.setUint8(13, Math.min(255, h.connectedPeers));
      v.setUint8(14, Math.min(255, h.syncedPeers));
      return out;
    }
    case MessageType.NotFound:
      return Uint8Array.of(m.type);
    case MessageType.ConeEnd: {
      const out = new Uint8Array(9);
      out[0] = m.type;
      new DataView(out.buffer).setUint32(1, m.index, true);
      new DataView(out.buffer).setUint32(5, m.blocks, true);
      return out;
    }
  }
}

function expectLength(bytes: Uint8Array, length: number, name: string): DataView {
  if (bytes.length !== length) throw malformed(`${name}: ${bytes.length} bytes, expected ${length}`);
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** Decodes one frame; throws MalformedMessage for an unknown type or a wrong length. */
export function decodeMessage(bytes: Uint8Array): Message {
  if (bytes.length === 0) throw malformed("empty message");
  const type = bytes[0]!;
  switch (type) {
    case MessageType.MilestoneRequest:
      return { type, index: expectLength(bytes, 5, "milestoneRequest").getUint32(1, true) };
    case MessageType.Block:
      if (bytes.length < 2 || bytes.length > MAX_MESSAGE_LENGTH) {
        throw malformed(`block: ${bytes.length - 1} bytes`);
      }
      return { type, bytes: bytes.slice(1) };
    case MessageType.BlockRequest:
      expectLength(bytes, 33, "blockRequest");
      return { type, blockId: bytes.slice(1) };
    case MessageType.Heartbeat: {
      const v = expectLength(bytes, 1 + HEARTBEAT_LENGTH, "heartbeat");
      return {
        type,
        heartbeat: {
          solidMilestoneIndex: v.getUint32(1, true),
          prunedMilestoneIndex: v.getUint32(5, true),
          latestMilestoneIndex: v.getUint32(9, true),
          connectedPeers: v.getUint8(13),
          syncedPeers: v.getUint8(14),
        },
      };
    }
    case MessageType.NotFound:
      expectLength(bytes, 1, "notFound");
      return { type };
    case MessageType.ConeEnd: {
      const v = expectLength(bytes, 9, "coneEnd");
      return { type, index: v.getUint32(1, true), blocks: v.getUint32(5, true) };
    }
    default:
      throw malformed(`unknown message type ${type}`);
  }
}
