import { toHex } from "../hex.js";
import { u256ToHex } from "../json.js";
import {
  type Address,
  AddressType,
  type Feature,
  FeatureType,
  type NativeToken,
  type Output,
  OutputType,
  type TokenScheme,
  type UnlockCondition,
  UnlockConditionType,
} from "../types.js";

/**
 * An output's TIP-25 JSON written straight to text: the same JSON as
 * `JSON.stringify(outputToJson(output))`, key for key (outputs.test.ts checks every kind), for
 * answers that embed an output in text they assemble (the core/v3 read). Every value of an
 * output's JSON is an integer, a decimal string or a hex string, so nothing needs escaping;
 * building the JSON objects and stringifying them costs about four times as much on Node 20.
 *
 * `typeCode` replaces the output's type in the text and `afterAmount` is JSON text (starting
 * with a comma) put right after `amount`: the core/v3 form's type codes and `mana`
 * (docs/decisions.md, The v3 output read).
 */
export function outputJsonText(output: Output, typeCode: number = output.type, afterAmount = ""): string {
  let s = `{"type":${typeCode},"amount":"${output.amount}"${afterAmount}`;
  if (output.type === OutputType.Treasury) return `${s}}`;
  if (output.nativeTokens.length > 0) s += `,"nativeTokens":${nativeTokensText(output.nativeTokens)}`;
  switch (output.type) {
    case OutputType.Alias:
      s += `,"aliasId":"${toHex(output.aliasId)}","stateIndex":${output.stateIndex}`;
      if (output.stateMetadata.length > 0) s += `,"stateMetadata":"${toHex(output.stateMetadata)}"`;
      s += `,"foundryCounter":${output.foundryCounter}`;
      break;
    case OutputType.Foundry:
      s += `,"serialNumber":${output.serialNumber},"tokenScheme":${tokenSchemeText(output.tokenScheme)}`;
      break;
    case OutputType.Nft:
      s += `,"nftId":"${toHex(output.nftId)}"`;
      break;
  }
  s += `,"unlockConditions":[`;
  for (let i = 0; i < output.unlockConditions.length; i++) {
    s += (i > 0 ? "," : "") + unlockConditionText(output.unlockConditions[i]!);
  }
  s += "]";
  if (output.features.length > 0) s += `,"features":${featuresText(output.features)}`;
  if (output.type !== OutputType.Basic && output.immutableFeatures.length > 0) {
    s += `,"immutableFeatures":${featuresText(output.immutableFeatures)}`;
  }
  return `${s}}`;
}

const u256Text = (v: bigint) => `"${u256ToHex(v)}"`;

function nativeTokensText(tokens: readonly NativeToken[]): string {
  let s = "[";
  for (let i = 0; i < tokens.length; i++) {
    s += `${i > 0 ? "," : ""}{"id":"${toHex(tokens[i]!.id)}","amount":${u256Text(tokens[i]!.amount)}}`;
  }
  return `${s}]`;
}

function tokenSchemeText(t: TokenScheme): string {
  return (
    `{"type":${t.type},"mintedTokens":${u256Text(t.mintedTokens)},` +
    `"meltedTokens":${u256Text(t.meltedTokens)},"maximumSupply":${u256Text(t.maximumSupply)}}`
  );
}

function addressText(a: Address): string {
  switch (a.type) {
    case AddressType.Ed25519:
      return `{"type":0,"pubKeyHash":"${toHex(a.pubKeyHash)}"}`;
    case AddressType.Alias:
      return `{"type":8,"aliasId":"${toHex(a.aliasId)}"}`;
    case AddressType.Nft:
      return `{"type":16,"nftId":"${toHex(a.nftId)}"}`;
  }
}

function unlockConditionText(uc: UnlockCondition): string {
  switch (uc.type) {
    case UnlockConditionType.Address:
    case UnlockConditionType.StateControllerAddress:
    case UnlockConditionType.GovernorAddress:
    case UnlockConditionType.ImmutableAliasAddress:
      return `{"type":${uc.type},"address":${addressText(uc.address)}}`;
    case UnlockConditionType.StorageDepositReturn:
      return `{"type":1,"returnAddress":${addressText(uc.returnAddress)},"amount":"${uc.amount}"}`;
    case UnlockConditionType.Timelock:
      return `{"type":2,"unixTime":${uc.unixTime}}`;
    case UnlockConditionType.Expiration:
      return `{"type":3,"returnAddress":${addressText(uc.returnAddress)},"unixTime":${uc.unixTime}}`;
  }
}

function featuresText(features: readonly Feature[]): string {
  let s = "[";
  for (let i = 0; i < features.length; i++) {
    const f = features[i]!;
    if (i > 0) s += ",";
    switch (f.type) {
      case FeatureType.Sender:
      case FeatureType.Issuer:
        s += `{"type":${f.type},"address":${addressText(f.address)}}`;
        break;
      case FeatureType.Metadata:
        s += `{"type":2,"data":"${toHex(f.data)}"}`;
        break;
      case FeatureType.Tag:
        s += `{"type":3,"tag":"${toHex(f.tag)}"}`;
        break;
    }
  }
  return `${s}]`;
}
