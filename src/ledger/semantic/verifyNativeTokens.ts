import { toHex } from "../../codec/hex.js";
import { MAX_NATIVE_TOKEN_COUNT } from "../../codec/nativeTokens.js";
import { ConflictReason } from "../conflictReason.js";
import { conflict } from "./conflict.js";
import { tokenKey } from "./keys.js";
import type { LedgerOutput, TokenSum, WorkingSet } from "./workingSet.js";

const MAX_UINT256 = (1n << 256n) - 1n;

function sumTokens(outputs: readonly LedgerOutput[], side: string): Map<string, TokenSum> {
  const sums = new Map<string, TokenSum>();
  for (const output of outputs) {
    for (const token of output.nativeTokens) {
      if (token.amount <= 0n) {
        conflict(ConflictReason.InvalidNativeTokens, `native token ${toHex(token.id)} has amount 0 in the ${side}`);
      }
      const key = tokenKey(token.id);
      const sum = sums.get(key);
      const amount = (sum?.amount ?? 0n) + token.amount;
      if (amount > MAX_UINT256) {
        conflict(
          ConflictReason.InvalidNativeTokens,
          `native token ${toHex(token.id)} sums above 2^256-1 in the ${side}`,
        );
      }
      if (sum === undefined) sums.set(key, { id: token.id, amount });
      else sum.amount = amount;
    }
  }
  return sums;
}

/**
 * Native tokens (TIP-20, TIP-18 "Native Tokens in Outputs"):
 * 1. per side, each token's sum fits a uint256;
 * 2. at most `Max Native Token Count` (64) distinct tokens over inputs and outputs together;
 * 3. a token whose foundry has no next state in the transaction cannot be minted: its output sum
 *    stays at most its input sum (less burns it). Where the foundry transitions, its token scheme
 *    rules decide (chain transitions step).
 * The sums stay in the working set for the foundry rules.
 */
export function verifyNativeTokens(ws: WorkingSet): void {
  // 1. sums
  ws.inTokens = sumTokens(ws.inputs, "inputs");
  ws.outTokens = sumTokens(ws.outputs, "outputs");

  // 2. distinct count
  let distinct = ws.inTokens.size;
  for (const key of ws.outTokens.keys()) if (!ws.inTokens.has(key)) distinct++;
  if (distinct > MAX_NATIVE_TOKEN_COUNT) {
    conflict(
      ConflictReason.InvalidNativeTokens,
      `${distinct} distinct native tokens, at most ${MAX_NATIVE_TOKEN_COUNT} are allowed`,
    );
  }

  // 3. no minting without the foundry
  for (const [key, out] of ws.outTokens) {
    if (ws.outChains.has(key)) continue;
    const inAmount = ws.inTokens.get(key)?.amount ?? 0n;
    if (out.amount > inAmount) {
      conflict(
        ConflictReason.InvalidNativeTokens,
        `native token ${toHex(out.id)}: outputs hold ${out.amount}, inputs ${inAmount}, and its foundry does not transition`,
      );
    }
  }
}
