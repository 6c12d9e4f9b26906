import { findFeature } from "../../codec/features.js";
import { FeatureType } from "../../codec/types.js";
import { ConflictReason } from "../conflictReason.js";
import { conflict } from "./conflict.js";
import { addressKey } from "./keys.js";
import type { WorkingSet } from "./workingSet.js";

/**
 * TIP-18 Sender Feature: an output may name a sender only if the transaction unlocks that
 * address (a signature for Ed25519, a state transition for an alias, the consumed NFT for an NFT).
 */
export function verifySenders(ws: WorkingSet): void {
  for (let i = 0; i < ws.outputs.length; i++) {
    const sender = findFeature(ws.outputs[i]!.features, FeatureType.Sender);
    if (sender !== undefined && !ws.unlocked.has(addressKey(sender.address))) {
      conflict(ConflictReason.InvalidSender, `output ${i}: its sender address is not unlocked by the transaction`);
    }
  }
}
