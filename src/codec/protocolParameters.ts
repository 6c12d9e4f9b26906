import { CodecErrorCode, codecError } from "./errors.js";
import { expectObject, expectString, expectU8, expectU32, expectU64String, type JsonObject } from "./json.js";
import { decodeWith, type ReadStream } from "./readStream.js";
import type { ProtocolParameters, RentStructure } from "./types.js";
import { encodeWith, type WriteStream } from "./writeStream.js";

/**
 * Protocol parameters (TIP-22/TIP-32) as carried in the `params` of a protocol parameters
 * milestone option (TIP-29) and in snapshots (TIP-35): u8 version, (u8) network name, (u8)
 * bech32 HRP, u32 min PoW score, u8 below max depth, rent structure (u32 vByteCost, u8 factor
 * data, u8 factor key), u64 token supply. Strings are 1..255 bytes of printable ASCII, so the
 * byte form and the JSON string are one-to-one.
 *
 * JSON is the `protocol` object of Hornet's `/api/core/v2/info`:
 * `{version, networkName, bech32Hrp, minPowScore, belowMaxDepth, rentStructure, tokenSupply}`.
 */

export function serializeProtocolParameters(w: WriteStream, p: ProtocolParameters, field = "protocolParameters"): void {
  w.u8(p.protocolVersion);
  writeString(w, p.networkName, `${field}.networkName`);
  writeString(w, p.bech32Hrp, `${field}.bech32Hrp`);
  w.u32(p.minPowScore).u8(p.belowMaxDepth);
  w.u32(p.rentStructure.vByteCost).u8(p.rentStructure.vByteFactorData).u8(p.rentStructure.vByteFactorKey);
  w.u64(p.tokenSupply);
}

export const encodeProtocolParameters = (p: ProtocolParameters): Uint8Array =>
  encodeWith(serializeProtocolParameters, p, 64);

export function deserializeProtocolParameters(r: ReadStream, field: string): ProtocolParameters {
  const protocolVersion = r.u8(`${field}.version`);
  const networkName = readString(r, `${field}.networkName`);
  const bech32Hrp = readString(r, `${field}.bech32Hrp`);
  const minPowScore = r.u32(`${field}.minPowScore`);
  const belowMaxDepth = r.u8(`${field}.belowMaxDepth`);
  const rentStructure: RentStructure = {
    vByteCost: r.u32(`${field}.rentStructure.vByteCost`),
    vByteFactorData: r.u8(`${field}.rentStructure.vByteFactorData`),
    vByteFactorKey: r.u8(`${field}.rentStructure.vByteFactorKey`),
  };
  const tokenSupply = r.u64(`${field}.tokenSupply`);
  return { protocolVersion, networkName, bech32Hrp, minPowScore, belowMaxDepth, rentStructure, tokenSupply };
}

/** Decodes a complete parameters blob (e.g. a milestone option's `params`); trailing bytes fail. */
export function decodeProtocolParameters(bytes: Uint8Array, field = "protocolParameters"): ProtocolParameters {
  return decodeWith(deserializeProtocolParameters, bytes, field);
}

export function protocolParametersToJson(p: ProtocolParameters): JsonObject {
  return {
    version: p.protocolVersion,
    networkName: p.networkName,
    bech32Hrp: p.bech32Hrp,
    minPowScore: p.minPowScore,
    belowMaxDepth: p.belowMaxDepth,
    rentStructure: {
      vByteCost: p.rentStructure.vByteCost,
      vByteFactorData: p.rentStructure.vByteFactorData,
      vByteFactorKey: p.rentStructure.vByteFactorKey,
    },
    tokenSupply: p.tokenSupply.toString(),
  };
}

export function protocolParametersFromJson(json: unknown, field: string): ProtocolParameters {
  const o = expectObject(json, field, [
    "version",
    "networkName",
    "bech32Hrp",
    "minPowScore",
    "belowMaxDepth",
    "rentStructure",
    "tokenSupply",
  ]);
  const rent = expectObject(o.rentStructure, `${field}.rentStructure`, [
    "vByteCost",
    "vByteFactorData",
    "vByteFactorKey",
  ]);
  return {
    protocolVersion: expectU8(o.version, `${field}.version`),
    networkName: checkString(expectString(o.networkName, `${field}.networkName`), `${field}.networkName`),
    bech32Hrp: checkString(expectString(o.bech32Hrp, `${field}.bech32Hrp`), `${field}.bech32Hrp`),
    minPowScore: expectU32(o.minPowScore, `${field}.minPowScore`),
    belowMaxDepth: expectU8(o.belowMaxDepth, `${field}.belowMaxDepth`),
    rentStructure: {
      vByteCost: expectU32(rent.vByteCost, `${field}.rentStructure.vByteCost`),
      vByteFactorData: expectU8(rent.vByteFactorData, `${field}.rentStructure.vByteFactorData`),
      vByteFactorKey: expectU8(rent.vByteFactorKey, `${field}.rentStructure.vByteFactorKey`),
    },
    tokenSupply: expectU64String(o.tokenSupply, `${field}.tokenSupply`),
  };
}

// ---------------------------------------------------------------- strings

/** 1..255 printable ASCII characters (0x20..0x7e). */
function checkString(s: string, field: string): string {
  if (s.length < 1 || s.length > 0xff) {
    throw codecError(CodecErrorCode.CountOutOfRange, field, `must be 1..255 characters, got ${s.length}`);
  }
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) {
      throw codecError(CodecErrorCode.ValueOutOfRange, field, `character ${i} is not printable ASCII`);
    }
  }
  return s;
}

function writeString(w: WriteStream, s: string, field: string): void {
  checkString(s, field);
  w.u8(s.length);
  for (let i = 0; i < s.length; i++) w.u8(s.charCodeAt(i));
}

function readString(r: ReadStream, field: string): string {
  const bytes = r.bytesN(r.u8(`${field}.length`), field);
  return checkString(String.fromCharCode(...bytes), field);
}
