import { addressFromJson, addressToJson, deserializeAddress, serializeAddress } from "./address.js";
import { CodecErrorCode, codecError } from "./errors.js";
import { compareBytes, toHex } from "./hex.js";
import { checkCount, jsonType, unexpectedType, writeFixed } from "./input.js";
import {
  expectArray,
  expectBool,
  expectHex,
  expectObject,
  expectU8,
  expectU32,
  expectU64String,
  type JsonObject,
} from "./json.js";
import { ReadStream } from "./readStream.js";
import {
  deserializeTreasuryTransaction,
  serializeTreasuryTransaction,
  treasuryTransactionFromJson,
  treasuryTransactionToJson,
} from "./treasuryTransaction.js";
import {
  AddressType,
  type MigratedFundsEntry,
  type MilestoneOption,
  MilestoneOptionType,
  type ProtocolParamsMilestoneOption,
  type ReceiptMilestoneOption,
} from "./types.js";
import { WriteStream } from "./writeStream.js";

/**
 * Milestone options (TIP-29): the receipt of migrated funds (TIP-34) and the announcement of
 * new protocol parameters. The list holds each type at most once, in ascending type order.
 */

/** Legacy tail transaction hash, t5b1-encoded (TIP-34). */
export const TAIL_TRANSACTION_HASH_LENGTH = 49;
/** Migrated funds entries per receipt: at least one; 127 as in Hornet and iota.js (TIP-34's table says Max Inputs Count). */
export const MAX_MIGRATED_FUNDS_COUNT = 127;

// ---------------------------------------------------------------- binary

export function serializeMilestoneOptions(
  w: WriteStream,
  options: readonly MilestoneOption[],
  field = "options",
): void {
  checkCount(options.length, field, 0, 0xff);
  w.u8(options.length);
  for (let i = 0; i < options.length; i++) serializeMilestoneOption(w, options[i]!, `${field}[${i}]`);
}

export function serializeMilestoneOption(w: WriteStream, o: MilestoneOption, field = "option"): void {
  if (o.type === MilestoneOptionType.Receipt) serializeReceipt(w, o, field);
  else if (o.type === MilestoneOptionType.ProtocolParams) {
    checkCount(o.params.length, `${field}.params`, 0, 0xffff);
    w.u8(o.type).u32(o.targetMilestoneIndex).u8(o.protocolVersion).u16(o.params.length).bytes(o.params);
  } else unexpectedType(field, (o as { type: number }).type, "milestone option type");
}

function serializeReceipt(w: WriteStream, o: ReceiptMilestoneOption, field: string): void {
  checkCount(o.funds.length, `${field}.funds`, 0, 0xffff);
  w.u8(o.type).u32(o.migratedAt).bool(o.final).u16(o.funds.length);
  for (let i = 0; i < o.funds.length; i++) {
    const f = o.funds[i]!;
    writeFixed(w, f.tailTransactionHash, TAIL_TRANSACTION_HASH_LENGTH, `${field}.funds[${i}].tailTransactionHash`);
    serializeAddress(w, f.address);
    w.u64(f.deposit);
  }
  const at = w.length;
  w.u32(0);
  serializeTreasuryTransaction(w, o.transaction, `${field}.transaction`);
  w.setU32At(at, w.length - at - 4);
}

export function deserializeMilestoneOptions(r: ReadStream, field: string): MilestoneOption[] {
  const count = r.u8(`${field}.length`);
  const options: MilestoneOption[] = [];
  for (let i = 0; i < count; i++) {
    const f = `${field}[${i}]`;
    const type = r.peekU8(`${f}.type`);
    if (type === MilestoneOptionType.Receipt) options.push(deserializeReceipt(r, f));
    else if (type === MilestoneOptionType.ProtocolParams) options.push(deserializeProtocolParamsOption(r, f));
    else unexpectedType(f, type, "milestone option type");
  }
  checkOptionOrder(options, field);
  return options;
}

function deserializeProtocolParamsOption(r: ReadStream, field: string): ProtocolParamsMilestoneOption {
  r.u8(`${field}.type`);
  const targetMilestoneIndex = r.u32(`${field}.targetMilestoneIndex`);
  const protocolVersion = r.u8(`${field}.protocolVersion`);
  const params = r.bytesN(r.u16(`${field}.params.length`), `${field}.params`);
  return { type: MilestoneOptionType.ProtocolParams, targetMilestoneIndex, protocolVersion, params };
}

function deserializeReceipt(r: ReadStream, field: string): ReceiptMilestoneOption {
  r.u8(`${field}.type`);
  const migratedAt = r.u32(`${field}.migratedAt`);
  const final = r.bool(`${field}.final`);
  const count = r.u16(`${field}.funds.length`);
  checkCount(count, `${field}.funds`, 1, MAX_MIGRATED_FUNDS_COUNT);
  const funds: MigratedFundsEntry[] = [];
  for (let i = 0; i < count; i++) {
    const f = `${field}.funds[${i}]`;
    const tailTransactionHash = r.bytesN(TAIL_TRANSACTION_HASH_LENGTH, `${f}.tailTransactionHash`);
    const addressType = r.peekU8(`${f}.address.type`);
    if (addressType !== AddressType.Ed25519) unexpectedType(`${f}.address`, addressType, "migration address type");
    const address = deserializeAddress(r, `${f}.address`);
    funds.push({ tailTransactionHash, address, deposit: r.u64(`${f}.deposit`) });
  }
  checkFundsOrder(funds, `${field}.funds`);
  const tf = `${field}.transaction`;
  const inner = new ReadStream(r.bytesN(r.u32(`${tf}.length`), tf));
  const transaction = deserializeTreasuryTransaction(inner, tf);
  inner.expectEnd(tf);
  return { type: MilestoneOptionType.Receipt, migratedAt, final, funds, transaction };
}

/** Options ascend strictly by type: sorted, and each type at most once (TIP-29). */
function checkOptionOrder(options: readonly MilestoneOption[], field: string): void {
  for (let i = 1; i < options.length; i++) {
    if (options[i]!.type <= options[i - 1]!.type) {
      throw codecError(CodecErrorCode.NotSortedOrUnique, `${field}[${i}]`, "options must ascend by type, each once");
    }
  }
}

/** Funds entries ascend strictly by tail transaction hash (TIP-34). */
function checkFundsOrder(funds: readonly MigratedFundsEntry[], field: string): void {
  for (let i = 1; i < funds.length; i++) {
    if (compareBytes(funds[i - 1]!.tailTransactionHash, funds[i]!.tailTransactionHash) >= 0) {
      throw codecError(
        CodecErrorCode.NotSortedOrUnique,
        `${field}[${i}].tailTransactionHash`,
        "entries must be sorted by tail transaction hash and unique",
      );
    }
  }
}

/** A receipt milestone option on its own, as Hornet stores one (`pkg/model/utxo/receipt.go`). */
export function encodeReceipt(o: ReceiptMilestoneOption): Uint8Array {
  const w = new WriteStream(256);
  serializeReceipt(w, o, "receipt");
  return w.finish();
}

export function decodeReceipt(bytes: Uint8Array, field = "receipt"): ReceiptMilestoneOption {
  const r = new ReadStream(bytes);
  const type = r.peekU8(`${field}.type`);
  if (type !== MilestoneOptionType.Receipt) unexpectedType(field, type, "receipt milestone option type");
  const o = deserializeReceipt(r, field);
  r.expectEnd(field);
  return o;
}

/** The tokens a receipt migrates: the sum of its entries' deposits (TIP-34). */
export function migratedAmount(o: ReceiptMilestoneOption): bigint {
  let total = 0n;
  for (const f of o.funds) total += f.deposit;
  return total;
}

// ---------------------------------------------------------------- JSON (TIP-25)

export function milestoneOptionToJson(o: MilestoneOption): JsonObject {
  if (o.type === MilestoneOptionType.ProtocolParams) {
    return {
      type: o.type,
      targetMilestoneIndex: o.targetMilestoneIndex,
      protocolVersion: o.protocolVersion,
      params: toHex(o.params),
    };
  }
  return {
    type: o.type,
    migratedAt: o.migratedAt,
    final: o.final,
    funds: o.funds.map((f) => ({
      tailTransactionHash: toHex(f.tailTransactionHash),
      address: addressToJson(f.address),
      deposit: f.deposit.toString(),
    })),
    transaction: treasuryTransactionToJson(o.transaction),
  };
}

export function milestoneOptionsFromJson(json: unknown, field: string): MilestoneOption[] {
  const options = expectArray(json, field).map((x, i) => milestoneOptionFromJson(x, `${field}[${i}]`));
  checkCount(options.length, field, 0, 0xff);
  checkOptionOrder(options, field);
  return options;
}

export function milestoneOptionFromJson(json: unknown, field: string): MilestoneOption {
  const type = jsonType(json, field);
  if (type === MilestoneOptionType.ProtocolParams) {
    const o = expectObject(json, field, ["type", "targetMilestoneIndex", "protocolVersion", "params"]);
    const params = expectHex(o.params, `${field}.params`);
    checkCount(params.length, `${field}.params`, 0, 0xffff);
    return {
      type,
      targetMilestoneIndex: expectU32(o.targetMilestoneIndex, `${field}.targetMilestoneIndex`),
      protocolVersion: expectU8(o.protocolVersion, `${field}.protocolVersion`),
      params,
    };
  }
  if (type !== MilestoneOptionType.Receipt) unexpectedType(field, type, "milestone option type");
  const o = expectObject(json, field, ["type", "migratedAt", "final", "funds", "transaction"]);
  const migratedAt = expectU32(o.migratedAt, `${field}.migratedAt`);
  const final = expectBool(o.final, `${field}.final`);
  const fundsJson = expectArray(o.funds, `${field}.funds`);
  checkCount(fundsJson.length, `${field}.funds`, 1, MAX_MIGRATED_FUNDS_COUNT);
  const funds = fundsJson.map((x, i) => migratedFundsFromJson(x, `${field}.funds[${i}]`));
  checkFundsOrder(funds, `${field}.funds`);
  const transaction = treasuryTransactionFromJson(o.transaction, `${field}.transaction`);
  return { type, migratedAt, final, funds, transaction };
}

function migratedFundsFromJson(json: unknown, field: string): MigratedFundsEntry {
  const o = expectObject(json, field, ["tailTransactionHash", "address", "deposit"]);
  const tailTransactionHash = expectHex(
    o.tailTransactionHash,
    `${field}.tailTransactionHash`,
    TAIL_TRANSACTION_HASH_LENGTH,
  );
  const addressType = jsonType(o.address, `${field}.address`);
  if (addressType !== AddressType.Ed25519) unexpectedType(`${field}.address`, addressType, "migration address type");
  const address = addressFromJson(o.address, `${field}.address`);
  return { tailTransactionHash, address, deposit: expectU64String(o.deposit, `${field}.deposit`) };
}
