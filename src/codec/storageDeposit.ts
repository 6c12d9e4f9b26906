import { CodecErrorCode, codecError } from "./errors.js";
import { encodeOutput } from "./outputs/output.js";
import {
  type Address,
  type BasicOutput,
  type Output,
  OutputType,
  type RentStructure,
  UnlockConditionType,
} from "./types.js";

/**
 * Storage deposit (TIP-19): every output must hold at least
 *   min = vByteCost × (vByteFactorData × size(output) + offset)
 * IOTA coins, where the offset accounts for what a node stores beside the output itself:
 *   offset = vByteFactorKey × 34 (output ID, a database key)
 *          + vByteFactorData × (32 block ID + 4 confirming milestone index + 4 its timestamp).
 * All factors are integers, so the rounding down TIP-19 asks for never applies.
 */

/** Output ID length (transaction ID 32 + output index u16): the key part of the offset. */
const OUTPUT_ID_LENGTH = 34;
/** Block ID (32) + confirmation milestone index (u32) + confirmation unix time (u32). */
const OUTPUT_METADATA_LENGTH = 32 + 4 + 4;

/** The virtual bytes a node stores for an output beside its serialized bytes. */
export function storageDepositOffset(rent: RentStructure): bigint {
  return (
    BigInt(rent.vByteFactorKey) * BigInt(OUTPUT_ID_LENGTH) +
    BigInt(rent.vByteFactorData) * BigInt(OUTPUT_METADATA_LENGTH)
  );
}

/** The minimum deposit for an output of `size` serialized bytes. */
export function minStorageDepositForSize(size: number, rent: RentStructure): bigint {
  const vBytes = BigInt(rent.vByteFactorData) * BigInt(size) + storageDepositOffset(rent);
  return BigInt(rent.vByteCost) * vBytes;
}

/**
 * The minimum deposit TIP-19 requires of `output`. Computed for any kind, treasury included,
 * although only outputs created by transactions are held to it.
 */
export function minStorageDeposit(output: Output, rent: RentStructure): bigint {
  return minStorageDepositForSize(encodeOutput(output).length, rent);
}

/**
 * TIP-18 Storage Deposit Return: the deposit of a basic output with only an Address unlock
 * condition on `returnAddress`, no native tokens and no features. A return amount below this
 * could not be paid back in an output of its own.
 */
export function minStorageDepositForReturn(returnAddress: Address, rent: RentStructure): bigint {
  const output: BasicOutput = {
    type: OutputType.Basic,
    amount: 0n,
    nativeTokens: [],
    unlockConditions: [{ type: UnlockConditionType.Address, address: returnAddress }],
    features: [],
  };
  return minStorageDeposit(output, rent);
}

/** Fails with StorageDeposit when `output.amount` is below its TIP-19 minimum. */
export function checkStorageDeposit(output: Output, rent: RentStructure, field: string): void {
  const min = minStorageDeposit(output, rent);
  if (output.amount < min) {
    throw codecError(
      CodecErrorCode.StorageDeposit,
      `${field}.amount`,
      `amount ${output.amount} is below the storage deposit ${min}`,
    );
  }
}

/**
 * TIP-18 Storage Deposit Return rule: `Minimum Storage Deposit` ≤ `Return Amount` ≤ `Amount`,
 * checked for an output that carries that unlock condition (others pass).
 */
export function checkStorageDepositReturn(output: Output, rent: RentStructure, field: string): void {
  if (output.type !== OutputType.Basic && output.type !== OutputType.Nft) return;
  const i = output.unlockConditions.findIndex((u) => u.type === UnlockConditionType.StorageDepositReturn);
  const uc = output.unlockConditions[i];
  if (uc === undefined || uc.type !== UnlockConditionType.StorageDepositReturn) return;
  const f = `${field}.unlockConditions[${i}].amount`;
  const min = minStorageDepositForReturn(uc.returnAddress, rent);
  if (uc.amount < min) {
    throw codecError(CodecErrorCode.StorageDeposit, f, `return amount ${uc.amount} is below the minimum ${min}`);
  }
  if (uc.amount > output.amount) {
    throw codecError(
      CodecErrorCode.StorageDeposit,
      f,
      `return amount ${uc.amount} exceeds the output's amount ${output.amount}`,
    );
  }
}
