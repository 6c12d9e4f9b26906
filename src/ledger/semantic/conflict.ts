import type { ConflictReason } from "../conflictReason.js";
import { TransactionConflictError } from "../errors.js";

/** Ends validation with `reason`; the rule's detail becomes the result's `details`. */
export function conflict(reason: ConflictReason, details: string): never {
  throw new TransactionConflictError(reason, details);
}
