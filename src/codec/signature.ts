import { toHex } from "./hex.js";
import { jsonType, unexpectedType, writeFixed } from "./input.js";
import { expectHex, expectObject, type JsonObject } from "./json.js";
import type { ReadStream } from "./readStream.js";
import { type Ed25519Signature, type Signature, SignatureType } from "./types.js";
import type { WriteStream } from "./writeStream.js";

/** Ed25519 signatures (TIP-20), the only signature scheme of Stardust. */

export const ED25519_PUBLIC_KEY_LENGTH = 32;
export const ED25519_SIGNATURE_LENGTH = 64;

export function serializeSignature(w: WriteStream, s: Signature, field = "signature"): void {
  if (s.type !== SignatureType.Ed25519) unexpectedType(field, s.type, "signature type");
  w.u8(SignatureType.Ed25519);
  writeFixed(w, s.publicKey, ED25519_PUBLIC_KEY_LENGTH, `${field}.publicKey`);
  writeFixed(w, s.signature, ED25519_SIGNATURE_LENGTH, `${field}.signature`);
}

export function deserializeSignature(r: ReadStream, field: string): Ed25519Signature {
  const type = r.u8(`${field}.type`);
  if (type !== SignatureType.Ed25519) unexpectedType(field, type, "signature type");
  return {
    type: SignatureType.Ed25519,
    publicKey: r.bytesN(ED25519_PUBLIC_KEY_LENGTH, `${field}.publicKey`),
    signature: r.bytesN(ED25519_SIGNATURE_LENGTH, `${field}.signature`),
  };
}

export function signatureToJson(s: Signature): JsonObject {
  return { type: s.type, publicKey: toHex(s.publicKey), signature: toHex(s.signature) };
}

export function signatureFromJson(json: unknown, field: string): Ed25519Signature {
  const type = jsonType(json, field);
  if (type !== SignatureType.Ed25519) unexpectedType(field, type, "signature type");
  const o = expectObject(json, field, ["type", "publicKey", "signature"]);
  return {
    type: SignatureType.Ed25519,
    publicKey: expectHex(o.publicKey, `${field}.publicKey`, ED25519_PUBLIC_KEY_LENGTH),
    signature: expectHex(o.signature, `${field}.signature`, ED25519_SIGNATURE_LENGTH),
  };
}
