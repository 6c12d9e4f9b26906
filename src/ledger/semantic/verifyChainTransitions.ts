import { addressEquals } from "../../codec/address.js";
import { findFeature } from "../../codec/features.js";
import { bytesEqual, toHex } from "../../codec/hex.js";
import { foundryAliasAddress } from "../../codec/outputs/foundryOutput.js";
import {
  type AliasOutput,
  type Feature,
  FeatureType,
  type FoundryOutput,
  UnlockConditionType,
} from "../../codec/types.js";
import { findUnlockCondition } from "../../codec/unlockConditions.js";
import { ConflictReason } from "../conflictReason.js";
import { conflict } from "./conflict.js";
import { featuresEqual, featureUnchanged, nativeTokensEqual } from "./equality.js";
import { addressKey } from "./keys.js";
import {
  simpleTokenSchemeCreation,
  simpleTokenSchemeDestruction,
  simpleTokenSchemeTransition,
} from "./simpleTokenScheme.js";
import { type ChainState, isZero, type WorkingSet } from "./workingSet.js";

type AliasState = Extract<ChainState, { kind: "alias" }>;
type FoundryState = Extract<ChainState, { kind: "foundry" }>;
type NftState = Extract<ChainState, { kind: "nft" }>;

function invalid(state: ChainState, reason: string): never {
  return conflict(ConflictReason.InvalidChainStateTransition, `${state.kind} ${toHex(state.id)}: ${reason}`);
}

/**
 * TIP-18 chain constraint: every chain consumed by the transaction is transitioned to its
 * next state (the output with the same chain ID) or destroyed (no such output); every chain on
 * the output side without a current state is created. Who may transition (state controller,
 * governor, owner) was settled by the unlocks; this step checks what may change.
 */
export function verifyChainTransitions(ws: WorkingSet): void {
  for (const current of ws.inChains.values()) {
    const next = ws.outChains.get(current.key);
    switch (current.kind) {
      case "alias":
        if (next?.kind === "alias") verifyAliasTransition(ws, current, next);
        break; // destruction: the governor's unlock was all it needed
      case "foundry":
        if (next?.kind === "foundry") verifyFoundryTransition(ws, current, next);
        else verifyFoundryDestruction(ws, current);
        break;
      case "nft":
        if (next?.kind === "nft") verifyNftTransition(current, next);
        break; // destruction: the owner's unlock was all it needed
    }
  }
  for (const next of ws.outChains.values()) {
    if (ws.inChains.has(next.key)) continue;
    switch (next.kind) {
      case "alias":
        verifyAliasCreation(ws, next);
        break;
      case "foundry":
        verifyFoundryCreation(ws, next);
        break;
      case "nft":
        verifyNftCreation(ws, next);
        break;
    }
  }
}

// ---------------------------------------------------------------- shared

/** TIP-18 Issuer Feature: a new chain may name an issuer only if the transaction unlocks it. */
function verifyIssuer(ws: WorkingSet, state: ChainState, immutableFeatures: readonly Feature[]): void {
  const issuer = findFeature(immutableFeatures, FeatureType.Issuer);
  if (issuer !== undefined && !ws.unlocked.has(addressKey(issuer.address))) {
    invalid(state, "its issuer address is not unlocked by the transaction");
  }
}

function controllers(output: AliasOutput) {
  return {
    stateController: findUnlockCondition(output.unlockConditions, UnlockConditionType.StateControllerAddress)?.address,
    governor: findUnlockCondition(output.unlockConditions, UnlockConditionType.GovernorAddress)?.address,
  };
}

// ---------------------------------------------------------------- alias

/** Creation: a zero Alias ID (the ID comes from the output ID), state index and foundry counter 0. */
function verifyAliasCreation(ws: WorkingSet, next: AliasState): void {
  const o = next.output;
  if (!isZero(o.aliasId)) invalid(next, "no input holds this alias, so its alias ID must be zero");
  if (o.stateIndex !== 0) invalid(next, `a new alias has state index ${o.stateIndex}`);
  if (o.foundryCounter !== 0) invalid(next, `a new alias has foundry counter ${o.foundryCounter}`);
  verifyIssuer(ws, next, o.immutableFeatures);
}

/**
 * Transition: immutable features never change; the next state index decides the kind.
 * - Governance transition (same state index): only the controllers and the features may
 *   change, so amount, native tokens, state metadata and foundry counter stay.
 * - State transition (state index + 1): controllers and the metadata feature stay; the foundry
 *   counter may only grow, by exactly the number of foundries of this alias created here.
 */
function verifyAliasTransition(ws: WorkingSet, current: AliasState, next: AliasState): void {
  const a = current.output;
  const b = next.output;
  if (!featuresEqual(a.immutableFeatures, b.immutableFeatures)) invalid(current, "immutable features changed");

  if (a.stateIndex === b.stateIndex) {
    if (a.amount !== b.amount) invalid(current, `governance transition changed the amount ${a.amount} to ${b.amount}`);
    if (!nativeTokensEqual(a.nativeTokens, b.nativeTokens))
      invalid(current, "governance transition changed native tokens");
    if (!bytesEqual(a.stateMetadata, b.stateMetadata)) invalid(current, "governance transition changed state metadata");
    if (a.foundryCounter !== b.foundryCounter) invalid(current, "governance transition changed the foundry counter");
    return;
  }

  if (b.stateIndex !== a.stateIndex + 1) invalid(current, `state index ${a.stateIndex} cannot become ${b.stateIndex}`);
  const x = controllers(a);
  const y = controllers(b);
  if (
    x.stateController === undefined ||
    y.stateController === undefined ||
    !addressEquals(x.stateController, y.stateController)
  ) {
    invalid(current, "state transition changed the state controller");
  }
  if (x.governor === undefined || y.governor === undefined || !addressEquals(x.governor, y.governor)) {
    invalid(current, "state transition changed the governor");
  }
  if (!featureUnchanged(FeatureType.Metadata, a.features, b.features)) {
    invalid(current, "state transition changed the metadata feature");
  }
  if (b.foundryCounter < a.foundryCounter) {
    invalid(current, `foundry counter decreased from ${a.foundryCounter} to ${b.foundryCounter}`);
  }
  let created = 0;
  for (const state of ws.outChains.values()) {
    if (state.kind === "foundry" && !ws.inChains.has(state.key) && foundryBelongsTo(state.output, current.id))
      created++;
  }
  if (created !== b.foundryCounter - a.foundryCounter) {
    invalid(
      current,
      `foundry counter grew by ${b.foundryCounter - a.foundryCounter} but ${created} foundries were created`,
    );
  }
}

function foundryBelongsTo(foundry: FoundryOutput, aliasId: Uint8Array): boolean {
  return bytesEqual(foundryAliasAddress(foundry).aliasId, aliasId);
}

// ---------------------------------------------------------------- foundry

function tokenSums(ws: WorkingSet, state: FoundryState): { in: bigint; out: bigint } {
  return { in: ws.inTokens.get(state.key)?.amount ?? 0n, out: ws.outTokens.get(state.key)?.amount ?? 0n };
}

/**
 * Creation: its alias is state transitioned here, the serial number lies in
 * (input foundry counter, output foundry counter], new foundries of one alias appear in the
 * outputs in increasing serial order, and the token scheme starts with what the outputs hold.
 */
function verifyFoundryCreation(ws: WorkingSet, next: FoundryState): void {
  const o = next.output;
  const alias = foundryAliasAddress(o);
  const aliasKey = addressKey(alias);
  const inAlias = ws.inChains.get(aliasKey);
  const outAlias = ws.outChains.get(aliasKey);
  if (inAlias?.kind !== "alias" || outAlias?.kind !== "alias") {
    invalid(next, `its alias ${toHex(alias.aliasId)} is not transitioned by the transaction`);
  }
  const from = inAlias.output.foundryCounter;
  const to = outAlias.output.foundryCounter;
  if (o.serialNumber <= from || o.serialNumber > to) {
    invalid(next, `serial number ${o.serialNumber} is outside the alias's new foundry range (${from}, ${to}]`);
  }
  for (const other of ws.outChains.values()) {
    if (other.index >= next.index) break; // the map holds the outputs' chains in output order
    if (other.kind !== "foundry" || ws.inChains.has(other.key) || !foundryBelongsTo(other.output, alias.aliasId))
      continue;
    if (other.output.serialNumber >= o.serialNumber) {
      invalid(
        next,
        `new foundries must be sorted by serial number: output ${other.index} has serial ${other.output.serialNumber}`,
      );
    }
  }
  const why = simpleTokenSchemeCreation(o.tokenScheme, tokenSums(ws, next).out);
  if (why !== undefined) invalid(next, why);
}

/**
 * Transition: the foundry ID (alias, serial number, token scheme type) is the chain ID, so
 * those cannot change; immutable features stay and the token scheme accounts for the tokens.
 */
function verifyFoundryTransition(ws: WorkingSet, current: FoundryState, next: FoundryState): void {
  if (!featuresEqual(current.output.immutableFeatures, next.output.immutableFeatures)) {
    invalid(current, "immutable features changed");
  }
  const t = tokenSums(ws, current);
  const why = simpleTokenSchemeTransition(current.output.tokenScheme, next.output.tokenScheme, t.out - t.in);
  if (why !== undefined) invalid(current, why);
}

/** Destruction: allowed once every minted token is melted (or vanishes here). */
function verifyFoundryDestruction(ws: WorkingSet, current: FoundryState): void {
  const t = tokenSums(ws, current);
  const why = simpleTokenSchemeDestruction(current.output.tokenScheme, t.out - t.in);
  if (why !== undefined) invalid(current, why);
}

// ---------------------------------------------------------------- NFT

/** Creation: a zero NFT ID, and an issuer (if any) unlocked by the transaction. */
function verifyNftCreation(ws: WorkingSet, next: NftState): void {
  if (!isZero(next.output.nftId)) invalid(next, "no input holds this NFT, so its NFT ID must be zero");
  verifyIssuer(ws, next, next.output.immutableFeatures);
}

/** Transition: immutable features never change. */
function verifyNftTransition(current: NftState, next: NftState): void {
  if (!featuresEqual(current.output.immutableFeatures, next.output.immutableFeatures)) {
    invalid(current, "immutable features changed");
  }
}
