// Semantic transaction validation (TIP-20, TIP-18, TIP-19): a pure function of a transaction
// and the outputs it consumes.

export { ConflictReason } from "../conflictReason.js";
export type { ConsumedOutput, SemanticValidationContext, SemanticValidationResult } from "./types.js";
export { validateTransaction } from "./validateTransaction.js";
