import { ed25519Verify } from "../crypto/ed25519.js";
import { compareBytes, toHex } from "./hex.js";
import { computeMilestoneId } from "./ids.js";
import { MAX_MILESTONE_SIGNATURES, MAX_PARENTS_COUNT, MIN_PARENTS_COUNT } from "./milestone.js";
import { MAX_MIGRATED_FUNDS_COUNT } from "./milestoneOptions.js";
import { validateOutput } from "./outputs/validateOutput.js";
import { rule } from "./syntacticTransaction.js";
import {
  AddressType,
  InputType,
  type MilestoneOption,
  MilestoneOptionType,
  type MilestonePayload,
  OutputType,
  PayloadType,
  type ProtocolParameters,
  type ReceiptMilestoneOption,
  SignatureType,
} from "./types.js";

/**
 * Syntactic validation of a milestone payload (TIP-29, receipts TIP-34): every rule that can be
 * checked from the payload itself and the node's configuration. Rules that need the past cone
 * (previous milestone, Merkle roots, timestamps) belong to the milestone layer.
 */

/** Max Metadata Length (TIP-22/32), which also bounds protocol parameter bytes. */
export const MAX_MILESTONE_METADATA_LENGTH = 8192;
/** A protocol parameters option takes effect at most this many milestones ahead (TIP-29, fixed). */
export const MAX_PROTOCOL_PARAMS_LEAD = 30;
/** Smallest deposit of a migrated funds entry (TIP-34). */
export const MIN_MIGRATED_FUNDS_DEPOSIT = 1_000_000n;

/** Node configuration a milestone is checked against beyond the protocol parameters. */
export interface MilestoneSyntaxOptions {
  /** First Milestone Index (TIP-22); a milestone with this index has a zero previous milestone ID. Default 1. */
  firstMilestoneIndex?: number;
  /**
   * The coordinator keys valid for this milestone's index. When given, the signature count must
   * lie in [threshold, publicKeys.length], every key must be one of them, and every signature
   * must verify over the milestone ID (the BLAKE2b-256 of the essence).
   */
  keys?: MilestoneKeys;
}

export function validateMilestoneSyntax(
  m: MilestonePayload,
  params: ProtocolParameters,
  field = "milestone",
  options: MilestoneSyntaxOptions = {},
): void {
  // 1. Index and the chain start.
  const first = options.firstMilestoneIndex ?? 1;
  if (m.index < first) rule(`${field}.index`, `index must be ≥ the first milestone index ${first}`);
  if (m.index === first && m.previousMilestoneId.some((b) => b !== 0)) {
    rule(`${field}.previousMilestoneId`, "the first milestone has a zero previous milestone ID");
  }
  // 2. Parents, metadata.
  if (m.parents.length < MIN_PARENTS_COUNT || m.parents.length > MAX_PARENTS_COUNT) {
    rule(`${field}.parents`, "parents count must be 1..8");
  }
  for (let i = 1; i < m.parents.length; i++) {
    if (compareBytes(m.parents[i - 1]!, m.parents[i]!) >= 0)
      rule(`${field}.parents[${i}]`, "parents must be sorted and unique");
  }
  if (m.metadata.length > MAX_MILESTONE_METADATA_LENGTH) {
    rule(`${field}.metadata`, `metadata is ${m.metadata.length} bytes, the limit is ${MAX_MILESTONE_METADATA_LENGTH}`);
  }
  // 3. Options: ascending by type, each once, each valid.
  m.options.forEach((o, i) => {
    const f = `${field}.options[${i}]`;
    if (i > 0 && o.type <= m.options[i - 1]!.type) rule(`${f}.type`, "options must ascend by type, each once");
    validateOption(o, m.index, params, f);
  });
  // 4. Signatures: 1..255 Ed25519, sorted by public key, each key once; keys and validity if configured.
  const sigs = m.signatures;
  if (sigs.length < 1 || sigs.length > MAX_MILESTONE_SIGNATURES)
    rule(`${field}.signatures`, "signatures count must be 1..255");
  sigs.forEach((s, i) => {
    const f = `${field}.signatures[${i}]`;
    if (s.type !== SignatureType.Ed25519) rule(`${f}.type`, "signature must be Ed25519");
    if (i > 0 && compareBytes(sigs[i - 1]!.publicKey, s.publicKey) >= 0) {
      rule(`${f}.publicKey`, "signatures must be sorted by public key, each key once");
    }
  });
  if (options.keys !== undefined) checkSignatures(m, options.keys, field);
}

function validateOption(o: MilestoneOption, index: number, params: ProtocolParameters, field: string): void {
  if (o.type === MilestoneOptionType.ProtocolParams) {
    if (o.targetMilestoneIndex <= index)
      rule(`${field}.targetMilestoneIndex`, "must be greater than the milestone index");
    if (o.targetMilestoneIndex > index + MAX_PROTOCOL_PARAMS_LEAD) {
      rule(`${field}.targetMilestoneIndex`, `must be at most ${MAX_PROTOCOL_PARAMS_LEAD} after the milestone index`);
    }
    if (o.params.length > MAX_MILESTONE_METADATA_LENGTH) {
      rule(`${field}.params`, `params are ${o.params.length} bytes, the limit is ${MAX_MILESTONE_METADATA_LENGTH}`);
    }
    return;
  }
  if (o.type === MilestoneOptionType.Receipt) validateReceipt(o, params, field);
  else rule(`${field}.type`, `unknown milestone option type ${(o as { type: number }).type}`);
}

/** TIP-34 receipt: 1..127 funds sorted by tail hash, Ed25519 addresses, deposits ≥ 1 Mi, a valid treasury transaction. */
function validateReceipt(o: ReceiptMilestoneOption, params: ProtocolParameters, field: string): void {
  if (o.funds.length < 1 || o.funds.length > MAX_MIGRATED_FUNDS_COUNT) {
    rule(`${field}.funds`, `funds count must be 1..${MAX_MIGRATED_FUNDS_COUNT}`);
  }
  let total = 0n;
  o.funds.forEach((f, i) => {
    const ff = `${field}.funds[${i}]`;
    if (i > 0 && compareBytes(o.funds[i - 1]!.tailTransactionHash, f.tailTransactionHash) >= 0) {
      rule(`${ff}.tailTransactionHash`, "funds must be sorted by tail transaction hash and unique");
    }
    if (f.address.type !== AddressType.Ed25519) rule(`${ff}.address.type`, "migrated funds go to Ed25519 addresses");
    if (f.deposit < MIN_MIGRATED_FUNDS_DEPOSIT)
      rule(`${ff}.deposit`, `deposit must be at least ${MIN_MIGRATED_FUNDS_DEPOSIT}`);
    total += f.deposit;
  });
  if (total > params.tokenSupply) rule(`${field}.funds`, "migrated funds exceed the token supply");
  const t = o.transaction;
  const tf = `${field}.transaction`;
  if (t.type !== PayloadType.TreasuryTransaction) rule(`${tf}.type`, "must be a treasury transaction");
  if (t.input.type !== InputType.Treasury) rule(`${tf}.input.type`, "must be a treasury input");
  if (t.output.type !== OutputType.Treasury) rule(`${tf}.output.type`, "must be a treasury output");
  validateOutput(t.output, params, `${tf}.output`);
}

function checkSignatures(m: MilestonePayload, keys: MilestoneKeys, field: string): void {
  const fault = milestoneSignatureFault(m, keys);
  if (fault) rule(`${field}.${fault.field}`, fault.reason);
}

/** The coordinator keys a milestone is checked against and how many of them must sign (TIP-29). */
export interface MilestoneKeys {
  threshold: number;
  publicKeys: readonly Uint8Array[];
}

/**
 * The one rule of a milestone's signatures (TIP-29), for every caller (syntax, intake, proofs of
 * inclusion): at least `threshold` and at most as many signatures as keys, every one by a listed
 * key and valid over the milestone ID (the BLAKE2b-256 of the essence). Undefined when they make
 * the milestone valid; else the field (below the milestone) and the reason.
 */
export function milestoneSignatureFault(
  m: MilestonePayload,
  keys: MilestoneKeys,
): { field: string; reason: string } | undefined {
  const n = m.signatures.length;
  if (n < keys.threshold || n > keys.publicKeys.length) {
    return { field: "signatures", reason: `${n} signatures, expected ${keys.threshold}..${keys.publicKeys.length}` };
  }
  const allowed = new Set(keys.publicKeys.map(toHex));
  const message = computeMilestoneId(m);
  for (let i = 0; i < n; i++) {
    const s = m.signatures[i]!;
    if (!allowed.has(toHex(s.publicKey))) {
      return { field: `signatures[${i}].publicKey`, reason: "not an applicable coordinator key" };
    }
    if (!ed25519Verify(s.publicKey, message, s.signature)) {
      return { field: `signatures[${i}].signature`, reason: "invalid signature" };
    }
  }
  return undefined;
}
