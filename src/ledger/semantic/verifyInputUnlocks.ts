import { bytesEqual, toHex } from "../../codec/hex.js";
import { inputsCommitment, inputsCommitmentFromBytes } from "../../codec/ids.js";
import { type Address, AddressType, SignatureType, type Unlock, UnlockType } from "../../codec/types.js";
import { blake2b256, ed25519Verify } from "../../crypto/index.js";
import { ConflictReason } from "../conflictReason.js";
import { conflict } from "./conflict.js";
import { addressKey } from "./keys.js";
import { unlockingAddress } from "./unlockConditions.js";
import type { WorkingSet } from "./workingSet.js";

const ADDRESS_NAMES: Record<number, string> = {
  [AddressType.Ed25519]: "an Ed25519 address",
  [AddressType.Alias]: "an alias address",
  [AddressType.Nft]: "an NFT address",
};
const UNLOCK_NAMES: Record<number, string> = {
  [UnlockType.Signature]: "a signature unlock",
  [UnlockType.Reference]: "a reference unlock",
  [UnlockType.Alias]: "an alias unlock",
  [UnlockType.Nft]: "an NFT unlock",
};

/**
 * TIP-20 input checks, in input order:
 * 1. the inputs commitment commits to the consumed outputs;
 * 2. each input's unlock is valid for the address that must unlock it (unlockingAddress);
 * 3. a consumed NFT, and a consumed alias that is state transitioned, unlocks its own address
 *    for later inputs (TIP-18 "Unlocking Chain Script Locked Outputs"); a governance transition
 *    or destruction of an alias does not.
 */
export function verifyInputUnlocks(ws: WorkingSet): void {
  // 1. inputs commitment
  const inputBytes = ws.ctx.precomputed?.inputBytes;
  const commitment = inputBytes ? inputsCommitmentFromBytes(inputBytes) : inputsCommitment(ws.inputs);
  if (!bytesEqual(commitment, ws.tx.essence.inputsCommitment)) {
    conflict(
      ConflictReason.InvalidInputsCommitment,
      `inputs commitment is ${toHex(ws.tx.essence.inputsCommitment)}, the consumed outputs give ${toHex(commitment)}`,
    );
  }

  for (let i = 0; i < ws.inputs.length; i++) {
    // 2. the unlock of input i
    verifyUnlock(ws, unlockingAddress(ws, i), i);

    // 3. chain addresses unlocked by this input
    const chain = ws.inputChains[i];
    if (chain === undefined || chain.kind === "foundry") continue;
    if (chain.kind === "alias") {
      const next = ws.outChains.get(chain.key);
      if (next === undefined || next.kind !== "alias" || next.output.stateIndex !== chain.output.stateIndex + 1)
        continue;
    }
    ws.unlocked.establish(chain.key, i);
  }
}

function wrongUnlock(i: number, owner: Address, unlock: Unlock): never {
  return conflict(
    ConflictReason.InvalidInputUnlock,
    `input ${i} is owned by ${ADDRESS_NAMES[owner.type]} but has ${UNLOCK_NAMES[unlock.type]}`,
  );
}

function verifyUnlock(ws: WorkingSet, owner: Address, i: number): void {
  const unlock = ws.tx.unlocks[i]!;
  const key = addressKey(owner);

  // chain addresses: only the unlock of their own kind, referencing the input that unlocked the chain
  if (owner.type !== AddressType.Ed25519) {
    const expected = owner.type === AddressType.Alias ? UnlockType.Alias : UnlockType.Nft;
    if (unlock.type !== expected) wrongUnlock(i, owner, unlock);
    if (!ws.unlocked.reference(key, unlock.reference, i)) {
      const chain = owner.type === AddressType.Alias ? "alias (state transitioned)" : "NFT";
      conflict(
        ConflictReason.InvalidInputUnlock,
        `input ${i}: input ${unlock.reference} is not the ${chain} that owns it`,
      );
    }
    return;
  }

  // Ed25519 addresses: a signature the first time, a reference to that signature afterwards
  switch (unlock.type) {
    case UnlockType.Reference:
      if (!ws.unlocked.reference(key, unlock.reference, i)) {
        conflict(
          ConflictReason.InvalidInputUnlock,
          `input ${i}: unlock ${unlock.reference} is not the signature unlock of the address that owns it`,
        );
      }
      return;
    case UnlockType.Signature: {
      const at = ws.unlocked.unlockedAt(key);
      if (at !== undefined) {
        conflict(
          ConflictReason.InvalidInputUnlock,
          `input ${i}: its address was unlocked by input ${at}, so it needs a reference unlock`,
        );
      }
      const signature = unlock.signature;
      if (signature.type !== SignatureType.Ed25519) {
        conflict(ConflictReason.InvalidSignature, `input ${i}: signature type ${signature.type} cannot unlock it`);
      }
      if (!bytesEqual(blake2b256(signature.publicKey), owner.pubKeyHash)) {
        conflict(ConflictReason.InvalidSignature, `input ${i}: the public key does not hash to the owning address`);
      }
      if (!ed25519Verify(signature.publicKey, ws.signingHash, signature.signature)) {
        conflict(ConflictReason.InvalidSignature, `input ${i}: the signature does not verify`);
      }
      ws.unlocked.establish(key, i);
      return;
    }
    default:
      wrongUnlock(i, owner, unlock);
  }
}
