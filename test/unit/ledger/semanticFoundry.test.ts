import { describe, it } from "node:test";
import { ConflictReason } from "../../../src/ledger/conflictReason.js";
import {
  type AliasFields,
  AMOUNT,
  alias,
  alice,
  assertConflict,
  assertValid,
  basic,
  buildTransaction,
  consumed,
  controller,
  type FoundryFields,
  foundry,
  governor,
  idOf,
  token,
  tokenId,
} from "../../helpers/txBuilder.js";

const aliasId = idOf("token issuer");
const aliasState = (fields: Partial<AliasFields> = {}) =>
  alias({ aliasId, stateIndex: 5, stateController: controller.address, governor: governor.address, ...fields });
const foundryOf = (fields: Partial<FoundryFields> = {}) => foundry({ aliasId, serialNumber: 1, ...fields });
const holding = (serial: number, amount: bigint) =>
  basic(alice.address, { nativeTokens: [token(tokenId(aliasId, serial), amount)] });
/** Coins for the extra outputs a test creates. */
const funds = (n = 1n) => consumed(basic(controller.address, { amount: n * AMOUNT }));

describe("semantic validation: foundry creation (TIP-18)", () => {
  it("accepts a foundry created by a state transition that raises the foundry counter", () => {
    assertValid({
      inputs: [consumed(aliasState()), funds(2n)],
      outputs: [aliasState({ stateIndex: 6, foundryCounter: 1 }), foundryOf({ minted: 1000n }), holding(1, 1000n)],
      unlockers: [controller, controller],
    });
  });

  it("rejects a serial number outside (old counter, new counter] (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(aliasState()), funds()],
      outputs: [aliasState({ stateIndex: 6, foundryCounter: 1 }), foundryOf({ serialNumber: 2 })],
      unlockers: [controller, controller],
    });
  });

  it("rejects a foundry counter that grows by more than the foundries created (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(aliasState()), funds()],
      outputs: [aliasState({ stateIndex: 6, foundryCounter: 2 }), foundryOf()],
      unlockers: [controller, controller],
    });
  });

  it("requires new foundries in increasing serial order (12 when not)", () => {
    const build = (serials: number[]) =>
      buildTransaction({
        inputs: [consumed(aliasState()), funds(2n)],
        outputs: [
          aliasState({ stateIndex: 6, foundryCounter: 2 }),
          ...serials.map((s) => foundryOf({ serialNumber: s })),
        ],
        unlockers: [controller, controller],
      });
    assertValid(build([1, 2]));
    assertConflict(ConflictReason.InvalidChainStateTransition, build([2, 1]));
  });

  it("rejects a minted count the outputs do not hold (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(aliasState()), funds(2n)],
      outputs: [aliasState({ stateIndex: 6, foundryCounter: 1 }), foundryOf({ minted: 1000n }), holding(1, 500n)],
      unlockers: [controller, controller],
    });
  });

  it("rejects a foundry whose alias is not transitioned (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(basic(alice.address))],
      outputs: [foundryOf()],
      unlockers: [alice],
    });
  });
});

describe("semantic validation: foundry transition (TIP-18 simple token scheme)", () => {
  const transition = (next: Partial<FoundryFields>, held: bigint, before: Partial<FoundryFields> = { minted: 1000n }) =>
    buildTransaction({
      inputs: [consumed(aliasState({ foundryCounter: 1 })), consumed(foundryOf(before)), funds()],
      outputs: [aliasState({ stateIndex: 6, foundryCounter: 1 }), foundryOf(next), holding(1, held)],
      unlockers: [controller, { alias: 0 }, controller],
    });

  it("accepts minting that raises the minted count by the new tokens", () => {
    assertValid(transition({ minted: 1500n }, 500n));
  });

  it("rejects minting that the minted count does not match (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, transition({ minted: 1400n }, 500n));
  });

  it("rejects a change of the maximum supply (12)", () => {
    assertConflict(
      ConflictReason.InvalidChainStateTransition,
      transition({ minted: 1500n, maximumSupply: 5000n }, 500n),
    );
  });

  const melt = (melted: bigint, left: bigint) =>
    buildTransaction({
      inputs: [
        consumed(aliasState({ foundryCounter: 1 })),
        consumed(foundryOf({ minted: 1000n })),
        consumed(holding(1, 300n)),
      ],
      outputs: [
        aliasState({ stateIndex: 6, foundryCounter: 1 }),
        foundryOf({ minted: 1000n, melted }),
        holding(1, left),
      ],
      unlockers: [controller, { alias: 0 }, alice],
    });

  it("accepts melting no more than the tokens that vanish", () => {
    assertValid(melt(200n, 100n));
  });

  it("rejects melting more than the tokens that vanish (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, melt(300n, 100n));
  });

  it("does not unlock a foundry under a governance transition of its alias (9)", () => {
    assertConflict(ConflictReason.InvalidInputUnlock, {
      inputs: [consumed(aliasState({ foundryCounter: 1 })), consumed(foundryOf())],
      outputs: [aliasState({ foundryCounter: 1 }), foundryOf()],
      unlockers: [governor, { alias: 0 }],
    });
  });
});

describe("semantic validation: foundry destruction (TIP-18)", () => {
  const destroy = (melted: bigint) =>
    buildTransaction({
      inputs: [consumed(aliasState({ foundryCounter: 1 })), consumed(foundryOf({ minted: 1000n, melted }))],
      outputs: [aliasState({ stateIndex: 6, foundryCounter: 1 }), basic(controller.address)],
      unlockers: [controller, { alias: 0 }],
    });

  it("accepts destroying a foundry whose tokens are all melted", () => {
    assertValid(destroy(1000n));
  });

  it("rejects destroying a foundry with tokens outstanding (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, destroy(500n));
  });
});

describe("semantic validation: malformed outputs", () => {
  it("fails an output the codec cannot encode instead of throwing (255)", () => {
    const broken = foundryOf();
    broken.unlockConditions = [];
    assertConflict(ConflictReason.SemanticValidationFailed, {
      inputs: [consumed(aliasState()), funds()],
      outputs: [aliasState({ stateIndex: 6, foundryCounter: 1 }), broken],
      unlockers: [controller, controller],
    });
  });
});
