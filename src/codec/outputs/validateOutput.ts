import { ADDRESS_HASH_LENGTH, addressEquals, aliasAddressOf, nftAddressOf } from "../address.js";
import { CodecErrorCode, codecError } from "../errors.js";
import { checkStorageDeposit, checkStorageDepositReturn } from "../storageDeposit.js";
import {
  type AliasOutput,
  type FoundryOutput,
  type NativeToken,
  type NftOutput,
  type Output,
  OutputType,
  type ProtocolParameters,
  type UnlockCondition,
  UnlockConditionType,
} from "../types.js";

/**
 * The TIP-18 syntactic rules an output must meet on its own, beyond what decoding enforces
 * (type codes, allowed/sorted/unique unlock conditions and features, lengths and counts).
 * These need protocol parameters or look at values: amounts, native token amounts, unix times,
 * alias/NFT self-reference, the foundry token scheme, and the TIP-19 storage deposit.
 * Transaction-wide rules (sums, the 64 distinct native tokens of a transaction) are not here.
 */

/** The protocol parameters output validation depends on. */
export type OutputValidationParams = Pick<ProtocolParameters, "tokenSupply" | "rentStructure">;

function rule(field: string, reason: string): never {
  throw codecError(CodecErrorCode.SyntacticRule, field, reason);
}

const isZeroId = (id: Uint8Array): boolean => id.length === ADDRESS_HASH_LENGTH && id.every((b) => b === 0);

/** `Amount` must not be 0 and must be ≤ the token supply. */
function checkAmount(amount: bigint, params: OutputValidationParams, field: string, allowZero: boolean): void {
  if (!allowZero && amount === 0n) rule(`${field}.amount`, "amount must not be 0");
  if (amount > params.tokenSupply) rule(`${field}.amount`, `amount exceeds the token supply ${params.tokenSupply}`);
}

/** `Amount` of any native token must not be 0. */
function checkNativeTokenAmounts(tokens: NativeToken[], field: string): void {
  tokens.forEach((t, i) => {
    if (t.amount === 0n) rule(`${field}.nativeTokens[${i}].amount`, "native token amount must not be 0");
  });
}

/** Timelock and Expiration: `Unix Time` must be > 0. */
function checkUnlockConditionValues(ucs: UnlockCondition[], field: string): void {
  ucs.forEach((uc, i) => {
    if ((uc.type === UnlockConditionType.Timelock || uc.type === UnlockConditionType.Expiration) && uc.unixTime === 0) {
      rule(`${field}.unlockConditions[${i}].unixTime`, "unix time must be > 0");
    }
  });
}

/**
 * Alias: with a zeroed Alias ID, State Index and Foundry Counter are 0; the state controller
 * and governor may not be the alias's own address (a zero ID names no alias yet, so it has none).
 */
function checkAlias(o: AliasOutput, field: string): void {
  if (isZeroId(o.aliasId)) {
    if (o.stateIndex !== 0) rule(`${field}.stateIndex`, "a new alias (zero alias ID) must have state index 0");
    if (o.foundryCounter !== 0) {
      rule(`${field}.foundryCounter`, "a new alias (zero alias ID) must have foundry counter 0");
    }
    return;
  }
  const self = aliasAddressOf(o.aliasId);
  o.unlockConditions.forEach((uc, i) => {
    if (
      (uc.type === UnlockConditionType.StateControllerAddress || uc.type === UnlockConditionType.GovernorAddress) &&
      addressEquals(uc.address, self)
    ) {
      rule(`${field}.unlockConditions[${i}].address`, "an alias cannot be controlled by its own address");
    }
  });
}

/** NFT: the Address unlock condition may not be the NFT's own address. */
function checkNft(o: NftOutput, field: string): void {
  if (isZeroId(o.nftId)) return;
  const self = nftAddressOf(o.nftId);
  o.unlockConditions.forEach((uc, i) => {
    if (uc.type === UnlockConditionType.Address && addressEquals(uc.address, self)) {
      rule(`${field}.unlockConditions[${i}].address`, "an NFT cannot be owned by its own address");
    }
  });
}

/** Simple Token Scheme: melted ≤ minted, minted − melted ≤ maximum supply, maximum supply > 0. */
function checkFoundry(o: FoundryOutput, field: string): void {
  const s = o.tokenScheme;
  const f = `${field}.tokenScheme`;
  if (s.meltedTokens > s.mintedTokens) rule(`${f}.meltedTokens`, "melted tokens exceed minted tokens");
  if (s.mintedTokens - s.meltedTokens > s.maximumSupply) {
    rule(`${f}.mintedTokens`, "circulating supply (minted − melted) exceeds the maximum supply");
  }
  if (s.maximumSupply === 0n) rule(`${f}.maximumSupply`, "maximum supply must be > 0");
}

/**
 * Checks the rules above for one output; `field` is its path for errors (e.g.
 * "transaction.essence.outputs[1]"). Throws CodecError SyntacticRule or StorageDeposit.
 * A treasury output is only held to `amount ≤ token supply`.
 */
export function validateOutput(output: Output, params: OutputValidationParams, field: string): void {
  if (output.type === OutputType.Treasury) {
    checkAmount(output.amount, params, field, true);
    return;
  }
  // 1. Amount and native tokens, common to every TIP-18 output.
  checkAmount(output.amount, params, field, false);
  checkNativeTokenAmounts(output.nativeTokens, field);
  checkUnlockConditionValues(output.unlockConditions, field);
  // 2. Kind-specific rules.
  if (output.type === OutputType.Alias) checkAlias(output, field);
  else if (output.type === OutputType.Nft) checkNft(output, field);
  else if (output.type === OutputType.Foundry) checkFoundry(output, field);
  // 3. Storage deposit (TIP-19) and the storage deposit return bounds (TIP-18).
  checkStorageDepositReturn(output, params.rentStructure, field);
  checkStorageDeposit(output, params.rentStructure, field);
}
