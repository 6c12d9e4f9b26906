import type { SimpleTokenScheme } from "../../codec/types.js";

/**
 * TIP-18 Simple Token Scheme validation. `diff` is the token's output sum minus its input sum
 * over the whole transaction (minting makes it positive, melting or burning negative). Each
 * function returns why the transition is invalid, or undefined.
 *
 * Where TIP-18 leaves a case open, the rules are those the Stardust reference implementation
 * (iota.go) enforces: with a negative diff the minted count must not change, and with a zero
 * diff neither counter may change.
 */

/** Creation: nothing melted yet, and the outputs hold exactly what was minted (`outputSum`). */
export function simpleTokenSchemeCreation(next: SimpleTokenScheme, outputSum: bigint): string | undefined {
  if (next.meltedTokens !== 0n) return `a new foundry has melted tokens ${next.meltedTokens}`;
  if (outputSum !== next.mintedTokens) {
    return `a new foundry minted ${next.mintedTokens} but the outputs hold ${outputSum}`;
  }
  return undefined;
}

/** Transition: maximum supply fixed, counters never decrease, and they account for `diff`. */
export function simpleTokenSchemeTransition(
  current: SimpleTokenScheme,
  next: SimpleTokenScheme,
  diff: bigint,
): string | undefined {
  if (current.maximumSupply !== next.maximumSupply) {
    return `maximum supply changed from ${current.maximumSupply} to ${next.maximumSupply}`;
  }
  if (next.mintedTokens < current.mintedTokens) {
    return `minted tokens decreased from ${current.mintedTokens} to ${next.mintedTokens}`;
  }
  if (next.meltedTokens < current.meltedTokens) {
    return `melted tokens decreased from ${current.meltedTokens} to ${next.meltedTokens}`;
  }
  const minted = next.mintedTokens - current.mintedTokens;
  const melted = next.meltedTokens - current.meltedTokens;
  if (diff > 0n) {
    // minting: the minted counter grows by exactly the new tokens
    if (minted !== diff) return `${diff} tokens appeared but the minted counter grew by ${minted}`;
    if (melted !== 0n) return "melted tokens changed while minting";
  } else if (diff < 0n) {
    // melting (and burning): at most the vanished tokens are counted as melted
    if (melted > -diff) return `${-diff} tokens vanished but the melted counter grew by ${melted}`;
    if (minted !== 0n) return "minted tokens changed while melting";
  } else if (minted !== 0n || melted !== 0n) {
    return "minted or melted tokens changed though the token balance did not";
  }
  return undefined;
}

/** Destruction: every minted token is melted once the vanished ones are counted. */
export function simpleTokenSchemeDestruction(current: SimpleTokenScheme, diff: bigint): string | undefined {
  if (current.mintedTokens + diff !== current.meltedTokens) {
    return `minted ${current.mintedTokens} with balance change ${diff} does not equal melted ${current.meltedTokens}`;
  }
  return undefined;
}
