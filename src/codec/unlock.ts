import { jsonType, unexpectedType } from "./input.js";
import { expectObject, expectU16, type JsonObject } from "./json.js";
import type { ReadStream } from "./readStream.js";
import { deserializeSignature, serializeSignature, signatureFromJson, signatureToJson } from "./signature.js";
import { type Unlock, UnlockType } from "./types.js";
import type { WriteStream } from "./writeStream.js";

/**
 * Unlocks (TIP-20): a signature, or a u16 reference to an earlier unlock (reference, alias and
 * NFT unlocks share the layout). Which earlier unlock a reference may point to is a syntactic
 * rule of the whole list (see syntactic.ts), not of one unlock.
 */

export function serializeUnlock(w: WriteStream, u: Unlock, field = "unlock"): void {
  switch (u.type) {
    case UnlockType.Signature:
      w.u8(u.type);
      serializeSignature(w, u.signature, `${field}.signature`);
      return;
    case UnlockType.Reference:
    case UnlockType.Alias:
    case UnlockType.Nft:
      w.u8(u.type).u16(u.reference);
      return;
    default:
      unexpectedType(field, (u as { type: number }).type, "unlock type");
  }
}

export function deserializeUnlock(r: ReadStream, field: string): Unlock {
  const type = r.u8(`${field}.type`);
  switch (type) {
    case UnlockType.Signature:
      return { type, signature: deserializeSignature(r, `${field}.signature`) };
    case UnlockType.Reference:
    case UnlockType.Alias:
    case UnlockType.Nft:
      return { type, reference: r.u16(`${field}.reference`) };
    default:
      return unexpectedType(field, type, "unlock type");
  }
}

export function unlockToJson(u: Unlock): JsonObject {
  if (u.type === UnlockType.Signature) return { type: u.type, signature: signatureToJson(u.signature) };
  return { type: u.type, reference: u.reference };
}

export function unlockFromJson(json: unknown, field: string): Unlock {
  const type = jsonType(json, field);
  switch (type) {
    case UnlockType.Signature: {
      const o = expectObject(json, field, ["type", "signature"]);
      return { type, signature: signatureFromJson(o.signature, `${field}.signature`) };
    }
    case UnlockType.Reference:
    case UnlockType.Alias:
    case UnlockType.Nft: {
      const o = expectObject(json, field, ["type", "reference"]);
      return { type, reference: expectU16(o.reference, `${field}.reference`) };
    }
    default:
      return unexpectedType(field, type, "unlock type");
  }
}
