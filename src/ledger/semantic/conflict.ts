import type { ConflictReason } from "../conflictReason.js";
import { transactionConflict } from "../errors.js";

/** Ends validation with `reason`; the rule's detail becomes the result's `details`. */
export function conflict(reason: ConflictReason, details: string): never {
  throw transactionConflict(reason, details);
}
