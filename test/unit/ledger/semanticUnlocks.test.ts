import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UnlockConditionType } from "../../../src/codec/types.js";
import { ConflictReason } from "../../../src/ledger/conflictReason.js";
import { isLedgerError, LedgerErrorCode } from "../../../src/ledger/errors.js";
import { validateTransaction } from "../../../src/ledger/semantic/index.js";
import {
  AMOUNT,
  alice,
  assertConflict,
  assertValid,
  basic,
  bob,
  buildTransaction,
  carol,
  consumed,
  MILESTONE_TIMESTAMP,
} from "../../helpers/txBuilder.js";

describe("semantic validation: signatures and references (TIP-20)", () => {
  it("accepts a signed transfer", () => {
    assertValid({
      inputs: [consumed(basic(alice.address, { amount: 3n * AMOUNT }))],
      outputs: [basic(bob.address, { amount: 2n * AMOUNT }), basic(alice.address)],
      unlockers: [alice],
    });
  });

  it("rejects a signature that does not verify (5)", () => {
    const built = buildTransaction({
      inputs: [consumed(basic(alice.address))],
      outputs: [basic(bob.address)],
      unlockers: [alice],
    });
    const unlock = built.tx.unlocks[0]!;
    assert.equal(unlock.type, 0);
    if (unlock.type === 0) unlock.signature.signature[5]! ^= 1;
    assertConflict(ConflictReason.InvalidSignature, built);
  });

  it("rejects a valid signature by a key that does not own the input (5)", () => {
    const built = buildTransaction({
      inputs: [consumed(basic(alice.address))],
      outputs: [basic(bob.address)],
      unlockers: [bob],
    });
    assert.match(assertConflict(ConflictReason.InvalidSignature, built), /does not hash/);
  });

  it("accepts a reference unlock to the signature of the same address", () => {
    assertValid({
      inputs: [consumed(basic(alice.address)), consumed(basic(bob.address)), consumed(basic(alice.address))],
      outputs: [basic(carol.address, { amount: 3n * AMOUNT })],
      unlockers: [alice, bob, alice], // the third becomes a reference to input 0
    });
  });

  it("rejects a second signature unlock for an address already unlocked (9)", () => {
    const built = buildTransaction({
      inputs: [consumed(basic(alice.address)), consumed(basic(alice.address))],
      outputs: [basic(carol.address, { amount: 2n * AMOUNT })],
      unlockers: [alice, alice],
    });
    built.tx.unlocks[1] = built.tx.unlocks[0]!; // same signature again instead of a reference
    assertConflict(ConflictReason.InvalidInputUnlock, built);
  });

  it("rejects a reference to another address's signature (9)", () => {
    assertConflict(ConflictReason.InvalidInputUnlock, {
      inputs: [consumed(basic(bob.address)), consumed(basic(alice.address))],
      outputs: [basic(carol.address, { amount: 2n * AMOUNT })],
      unlockers: [bob, { reference: 0 }],
    });
  });

  it("rejects a reference to a reference unlock (9)", () => {
    assertConflict(ConflictReason.InvalidInputUnlock, {
      inputs: [consumed(basic(alice.address)), consumed(basic(alice.address)), consumed(basic(alice.address))],
      outputs: [basic(carol.address, { amount: 3n * AMOUNT })],
      unlockers: [alice, { reference: 0 }, { reference: 1 }],
    });
  });

  it("rejects an alias unlock for an input owned by an Ed25519 address (9)", () => {
    assertConflict(ConflictReason.InvalidInputUnlock, {
      inputs: [consumed(basic(alice.address)), consumed(basic(alice.address))],
      outputs: [basic(carol.address, { amount: 2n * AMOUNT })],
      unlockers: [alice, { alias: 0 }],
    });
  });
});

describe("semantic validation: inputs commitment (TIP-20)", () => {
  it("rejects a commitment to other outputs (10)", () => {
    const other = consumed(basic(alice.address, { amount: 2n * AMOUNT }));
    const input = consumed(basic(alice.address));
    const honest = buildTransaction({
      inputs: [other],
      outputs: [basic(bob.address, { amount: 2n * AMOUNT })],
      unlockers: [alice],
    });
    assertValid(honest);
    assertConflict(ConflictReason.InvalidInputsCommitment, {
      inputs: [input],
      outputs: [basic(bob.address)],
      unlockers: [alice],
      inputsCommitment: honest.tx.essence.inputsCommitment,
    });
  });
});

describe("semantic validation: balances (TIP-20)", () => {
  it("rejects outputs that hold more than the inputs (4)", () => {
    assertConflict(ConflictReason.InputOutputSumMismatch, {
      inputs: [consumed(basic(alice.address))],
      outputs: [basic(bob.address, { amount: AMOUNT + 1n })],
      unlockers: [alice],
    });
  });

  it("rejects outputs that hold less than the inputs (4)", () => {
    assertConflict(ConflictReason.InputOutputSumMismatch, {
      inputs: [consumed(basic(alice.address))],
      outputs: [basic(bob.address, { amount: AMOUNT - 1n })],
      unlockers: [alice],
    });
  });
});

describe("semantic validation: timelock (TIP-18)", () => {
  const locked = (unixTime: number) =>
    basic(alice.address, { unlockConditions: [{ type: UnlockConditionType.Timelock, unixTime }] });

  it("accepts an input whose timelock ends at the milestone timestamp", () => {
    assertValid({
      inputs: [consumed(locked(MILESTONE_TIMESTAMP))],
      outputs: [basic(bob.address)],
      unlockers: [alice],
    });
  });

  it("rejects an input whose timelock ends after the milestone timestamp (6)", () => {
    assertConflict(ConflictReason.TimelockNotExpired, {
      inputs: [consumed(locked(MILESTONE_TIMESTAMP + 1))],
      outputs: [basic(bob.address)],
      unlockers: [alice],
    });
  });

  it("reports the timelock before a bad signature, as Hornet checks it first (6)", () => {
    assertConflict(ConflictReason.TimelockNotExpired, {
      inputs: [consumed(locked(MILESTONE_TIMESTAMP + 1))],
      outputs: [basic(bob.address)],
      unlockers: [bob],
    });
  });
});

describe("semantic validation: expiration (TIP-18)", () => {
  // alice sent to bob; alice takes it back once it expires
  const expiring = (unixTime: number) =>
    basic(bob.address, {
      unlockConditions: [{ type: UnlockConditionType.Expiration, returnAddress: alice.address, unixTime }],
    });
  const spend = (unixTime: number, who: typeof alice) =>
    buildTransaction({ inputs: [consumed(expiring(unixTime))], outputs: [basic(carol.address)], unlockers: [who] });

  it("lets the owner unlock before the expiration time", () => {
    assertValid(spend(MILESTONE_TIMESTAMP + 1, bob));
  });

  it("does not let the return address unlock before the expiration time (5)", () => {
    assertConflict(ConflictReason.InvalidSignature, spend(MILESTONE_TIMESTAMP + 1, alice));
  });

  it("lets the return address unlock from the expiration time on", () => {
    assertValid(spend(MILESTONE_TIMESTAMP, alice));
  });

  it("does not let the owner unlock from the expiration time on (5)", () => {
    assertConflict(ConflictReason.InvalidSignature, spend(MILESTONE_TIMESTAMP, bob));
  });
});

describe("semantic validation: context", () => {
  it("throws LedgerError when the consumed outputs do not match the inputs", () => {
    const built = buildTransaction({
      inputs: [consumed(basic(alice.address))],
      outputs: [basic(bob.address)],
      unlockers: [alice],
    });
    const wrong = { ...built.ctx, inputs: [consumed(basic(alice.address))] };
    assert.throws(
      () => validateTransaction(built.tx, wrong),
      (e: unknown) => isLedgerError(e) && e.code === LedgerErrorCode.InvalidContext,
    );
    assert.throws(
      () => validateTransaction(built.tx, { ...built.ctx, inputs: [] }),
      (e: unknown) => isLedgerError(e) && e.code === LedgerErrorCode.InvalidContext,
    );
  });
});
