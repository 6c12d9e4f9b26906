import { describe, it } from "node:test";
import { FeatureType, UnlockConditionType } from "../../../src/codec/types.js";
import { ConflictReason } from "../../../src/ledger/conflictReason.js";
import {
  AMOUNT,
  alice,
  assertConflict,
  assertValid,
  basic,
  bob,
  carol,
  consumed,
  idOf,
  MILESTONE_TIMESTAMP,
  token,
  tokenId,
} from "../../helpers/txBuilder.js";

// A basic output with only an Ed25519 address needs 100 × (1 × 46 + 10 × 34 + 40) = 42 600.
const RETURN = 50_000n;

const withReturn = (owner = bob, returnTo = alice, amount = RETURN) =>
  basic(owner.address, {
    unlockConditions: [{ type: UnlockConditionType.StorageDepositReturn, returnAddress: returnTo.address, amount }],
  });

describe("semantic validation: storage deposit return (TIP-18)", () => {
  it("accepts a transaction that returns the amount in a plain basic output", () => {
    assertValid({
      inputs: [consumed(withReturn())],
      outputs: [basic(alice.address, { amount: RETURN }), basic(bob.address, { amount: AMOUNT - RETURN })],
      unlockers: [bob],
    });
  });

  it("rejects a transaction that does not return the amount (8)", () => {
    assertConflict(ConflictReason.ReturnAmountNotFulfilled, {
      inputs: [consumed(withReturn())],
      outputs: [basic(bob.address)],
      unlockers: [bob],
    });
  });

  it("does not count a returning output that carries a feature (8)", () => {
    const tagged = basic(alice.address, {
      amount: RETURN,
      features: [{ type: FeatureType.Tag, tag: Uint8Array.of(1) }],
    });
    assertConflict(ConflictReason.ReturnAmountNotFulfilled, {
      inputs: [consumed(withReturn())],
      outputs: [tagged, basic(bob.address, { amount: AMOUNT - RETURN })],
      unlockers: [bob],
    });
  });

  it("sums the return amounts per return address (8 when one output covers only one)", () => {
    const inputs = () => [consumed(withReturn()), consumed(withReturn())];
    assertConflict(ConflictReason.ReturnAmountNotFulfilled, {
      inputs: inputs(),
      outputs: [basic(alice.address, { amount: RETURN }), basic(bob.address, { amount: 2n * AMOUNT - RETURN })],
      unlockers: [bob, bob],
    });
    assertValid({
      inputs: inputs(),
      outputs: [
        basic(alice.address, { amount: RETURN }),
        basic(alice.address, { amount: RETURN }),
        basic(bob.address, { amount: 2n * AMOUNT - 2n * RETURN }),
      ],
      unlockers: [bob, bob],
    });
  });

  it("owes nothing when the return address reclaims an expired output", () => {
    const expired = basic(bob.address, {
      unlockConditions: [
        { type: UnlockConditionType.StorageDepositReturn, returnAddress: alice.address, amount: RETURN },
        { type: UnlockConditionType.Expiration, returnAddress: alice.address, unixTime: MILESTONE_TIMESTAMP },
      ],
    });
    assertValid({ inputs: [consumed(expired)], outputs: [basic(carol.address)], unlockers: [alice] });
  });
});

describe("semantic validation: storage deposit (TIP-19)", () => {
  it("accepts an output holding exactly its storage deposit", () => {
    assertValid({
      inputs: [consumed(basic(alice.address))],
      outputs: [basic(bob.address, { amount: 42_600n }), basic(alice.address, { amount: AMOUNT - 42_600n })],
      unlockers: [alice],
    });
  });

  it("rejects an output below its storage deposit (255)", () => {
    assertConflict(ConflictReason.SemanticValidationFailed, {
      inputs: [consumed(basic(alice.address))],
      outputs: [basic(bob.address, { amount: 42_599n }), basic(alice.address, { amount: AMOUNT - 42_599n })],
      unlockers: [alice],
    });
  });

  it("rejects a return amount below the deposit of the output that would return it (255)", () => {
    assertConflict(ConflictReason.SemanticValidationFailed, {
      inputs: [consumed(basic(alice.address))],
      outputs: [withReturn(bob, alice, 42_599n)],
      unlockers: [alice],
    });
  });
});

describe("semantic validation: native tokens (TIP-20)", () => {
  const t1 = tokenId(idOf("some alias"), 1);

  it("accepts a balanced token transfer and a burn", () => {
    const input = () => consumed(basic(alice.address, { nativeTokens: [token(t1, 100n)] }));
    assertValid({
      inputs: [input()],
      outputs: [basic(bob.address, { nativeTokens: [token(t1, 100n)] })],
      unlockers: [alice],
    });
    assertValid({
      inputs: [input()],
      outputs: [basic(bob.address, { nativeTokens: [token(t1, 40n)] })],
      unlockers: [alice],
    });
  });

  it("rejects tokens that appear without their foundry (7)", () => {
    assertConflict(ConflictReason.InvalidNativeTokens, {
      inputs: [consumed(basic(alice.address, { nativeTokens: [token(t1, 100n)] }))],
      outputs: [basic(bob.address, { nativeTokens: [token(t1, 101n)] })],
      unlockers: [alice],
    });
  });

  it("rejects more than 64 distinct native tokens in a transaction (7)", () => {
    const tokens = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => token(tokenId(idOf(`alias ${from + i}`), 1), 1n));
    assertValid({
      inputs: [consumed(basic(alice.address, { nativeTokens: tokens(0, 64) }))],
      outputs: [basic(bob.address)],
      unlockers: [alice],
    });
    assertConflict(ConflictReason.InvalidNativeTokens, {
      inputs: [
        consumed(basic(alice.address, { nativeTokens: tokens(0, 64) })),
        consumed(basic(alice.address, { nativeTokens: tokens(64, 1) })),
      ],
      outputs: [basic(bob.address, { amount: 2n * AMOUNT })],
      unlockers: [alice, alice],
    });
  });
});

describe("semantic validation: sender feature (TIP-18)", () => {
  const from = (sender: typeof alice) =>
    basic(bob.address, { features: [{ type: FeatureType.Sender, address: sender.address }] });

  it("accepts a sender address unlocked by the transaction", () => {
    assertValid({ inputs: [consumed(basic(alice.address))], outputs: [from(alice)], unlockers: [alice] });
  });

  it("rejects a sender address the transaction does not unlock (11)", () => {
    assertConflict(ConflictReason.InvalidSender, {
      inputs: [consumed(basic(alice.address))],
      outputs: [from(carol)],
      unlockers: [alice],
    });
  });
});
