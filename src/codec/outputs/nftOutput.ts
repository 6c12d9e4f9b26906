import { ADDRESS_HASH_LENGTH } from "../address.js";
import { NFT_FEATURES, NFT_IMMUTABLE_FEATURES } from "../features.js";
import { toHex } from "../hex.js";
import { expectHex } from "../json.js";
import type { ReadStream } from "../readStream.js";
import { type NftOutput, OutputType } from "../types.js";
import { NFT_UNLOCK_CONDITIONS } from "../unlockConditions.js";
import type { WriteStream } from "../writeStream.js";
import { type ChainOutputJson, OutputKind } from "./outputFields.js";

/**
 * NFT output (TIP-18 "NFT Output"). Layout: u8 type (6) | u64 amount | native tokens |
 * 32-byte NFT ID | unlock conditions | features | immutable features: the NFT ID between the
 * shared head and tail (`outputFields.ts`).
 */

/** TIP-25 JSON form; empty lists are left out. */
export interface NftOutputJson extends ChainOutputJson<6> {
  nftId: string;
}

const NFT = OutputKind.chain(OutputType.Nft, "NFT", {
  unlockConditions: NFT_UNLOCK_CONDITIONS,
  features: NFT_FEATURES,
  immutableFeatures: NFT_IMMUTABLE_FEATURES,
});

/** Writes as given; decoding and `validateOutput` hold the rules. */
export function serializeNftOutput(w: WriteStream, o: NftOutput): void {
  NFT.serializeHead(w, o);
  w.bytes(o.nftId);
  NFT.serializeTail(w, o);
}

/** `field` is the output's path; errors name fields below it, e.g. `${field}.amount`. */
export function deserializeNftOutput(r: ReadStream, field: string): NftOutput {
  const { amount, nativeTokens } = NFT.deserializeHead(r, field);
  const nftId = r.bytesN(ADDRESS_HASH_LENGTH, `${field}.nftId`);
  const { unlockConditions, features, immutableFeatures } = NFT.deserializeTail(r, field);
  return { type: OutputType.Nft, amount, nativeTokens, nftId, unlockConditions, features, immutableFeatures };
}

/** Empty lists are left out, as Stardust nodes answer them. */
export function nftOutputToJson(o: NftOutput): NftOutputJson {
  return NFT.toJson(o, { nftId: toHex(o.nftId) });
}

/** Rejects what the binary decoder rejects, under the same code and field path; missing optional lists mean empty. */
export function nftOutputFromJson(json: unknown, field: string): NftOutput {
  const o = NFT.expectJson(json, field, ["nftId"]);
  const { amount, nativeTokens } = NFT.headFromJson(o, field);
  const nftId = expectHex(o.nftId, `${field}.nftId`, ADDRESS_HASH_LENGTH);
  const { unlockConditions, features, immutableFeatures } = NFT.tailFromJson(o, field);
  return { type: OutputType.Nft, amount, nativeTokens, nftId, unlockConditions, features, immutableFeatures };
}
