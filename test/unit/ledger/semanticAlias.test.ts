import { describe, it } from "node:test";
import { FeatureType } from "../../../src/codec/types.js";
import { ConflictReason } from "../../../src/ledger/conflictReason.js";
import {
  type AliasFields,
  AMOUNT,
  alias,
  aliasAddressOf,
  alice,
  assertConflict,
  assertValid,
  basic,
  bob,
  consumed,
  controller,
  governor,
  idOf,
  implicitAliasId,
} from "../../helpers/txBuilder.js";

const aliasId = idOf("alias");
const aliasAddress = aliasAddressOf(aliasId);
const current = (fields: Partial<AliasFields> = {}) =>
  alias({ aliasId, stateIndex: 5, stateController: controller.address, governor: governor.address, ...fields });
const metadata = (byte: number) => ({ type: FeatureType.Metadata, data: Uint8Array.of(byte) }) as const;

describe("semantic validation: alias creation (TIP-18)", () => {
  it("accepts a new alias with a zero ID, state index and foundry counter", () => {
    assertValid({
      inputs: [consumed(basic(alice.address))],
      outputs: [alias({ stateController: alice.address, governor: alice.address })],
      unlockers: [alice],
    });
  });

  it("rejects an alias ID on the output side that no input holds (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(basic(alice.address))],
      outputs: [alias({ aliasId: idOf("unknown"), stateController: alice.address, governor: alice.address })],
      unlockers: [alice],
    });
  });

  it("rejects a new alias whose state index is not zero (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(basic(alice.address))],
      outputs: [alias({ stateIndex: 1, stateController: alice.address, governor: alice.address })],
      unlockers: [alice],
    });
  });

  it("requires the issuer of a new alias to be unlocked (12)", () => {
    const issued = (issuer: typeof alice) =>
      alias({
        stateController: alice.address,
        governor: alice.address,
        immutableFeatures: [{ type: FeatureType.Issuer, address: issuer.address }],
      });
    const input = () => consumed(basic(alice.address));
    assertValid({ inputs: [input()], outputs: [issued(alice)], unlockers: [alice] });
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [input()],
      outputs: [issued(bob)],
      unlockers: [alice],
    });
  });
});

describe("semantic validation: alias state transition (TIP-18)", () => {
  it("accepts a state transition signed by the state controller", () => {
    assertValid({
      inputs: [consumed(current())],
      outputs: [
        current({ stateIndex: 6, stateMetadata: Uint8Array.of(1, 2), amount: AMOUNT / 2n }),
        basic(alice.address, { amount: AMOUNT / 2n }),
      ],
      unlockers: [controller],
    });
  });

  it("resolves the implicit ID of an alias consumed for the first time", () => {
    const input = consumed(alias({ stateController: controller.address, governor: governor.address }));
    assertValid({
      inputs: [input],
      outputs: [
        alias({
          aliasId: implicitAliasId(input),
          stateIndex: 1,
          stateController: controller.address,
          governor: governor.address,
        }),
      ],
      unlockers: [controller],
    });
  });

  it("rejects a state transition signed by the governor (5)", () => {
    assertConflict(ConflictReason.InvalidSignature, {
      inputs: [consumed(current())],
      outputs: [current({ stateIndex: 6 })],
      unlockers: [governor],
    });
  });

  it("rejects a state index that jumps by more than one (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(current())],
      outputs: [current({ stateIndex: 7 })],
      unlockers: [controller],
    });
  });

  it("rejects a state transition that changes the governor (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(current())],
      outputs: [current({ stateIndex: 6, governor: alice.address })],
      unlockers: [controller],
    });
  });

  it("rejects a state transition that changes the metadata feature (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(current({ features: [metadata(1)] }))],
      outputs: [current({ stateIndex: 6, features: [metadata(2)] })],
      unlockers: [controller],
    });
  });

  it("rejects a foundry counter that grows without new foundries (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(current())],
      outputs: [current({ stateIndex: 6, foundryCounter: 1 })],
      unlockers: [controller],
    });
  });

  it("rejects a change of immutable features (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(current({ immutableFeatures: [metadata(1)] }))],
      outputs: [current({ stateIndex: 6, immutableFeatures: [metadata(2)] })],
      unlockers: [controller],
    });
  });
});

describe("semantic validation: alias governance transition and destruction (TIP-18)", () => {
  it("accepts a governance transition that changes the controllers and metadata feature", () => {
    assertValid({
      inputs: [consumed(current())],
      outputs: [current({ stateController: alice.address, governor: bob.address, features: [metadata(9)] })],
      unlockers: [governor],
    });
  });

  it("rejects a governance transition signed by the state controller (5)", () => {
    assertConflict(ConflictReason.InvalidSignature, {
      inputs: [consumed(current())],
      outputs: [current({ stateController: alice.address })],
      unlockers: [controller],
    });
  });

  it("rejects a governance transition that changes the amount or the state metadata (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(current())],
      outputs: [current({ amount: AMOUNT / 2n }), basic(governor.address, { amount: AMOUNT / 2n })],
      unlockers: [governor],
    });
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(current())],
      outputs: [current({ stateMetadata: Uint8Array.of(1) })],
      unlockers: [governor],
    });
  });

  it("accepts a destruction signed by the governor", () => {
    assertValid({ inputs: [consumed(current())], outputs: [basic(governor.address)], unlockers: [governor] });
  });

  it("rejects a destruction signed by the state controller (5)", () => {
    assertConflict(ConflictReason.InvalidSignature, {
      inputs: [consumed(current())],
      outputs: [basic(controller.address)],
      unlockers: [controller],
    });
  });
});

describe("semantic validation: alias addresses (TIP-18 alias unlocking, sender feature)", () => {
  const owned = () => consumed(basic(aliasAddress));

  it("unlocks an output owned by the alias when the alias is state transitioned", () => {
    assertValid({
      inputs: [consumed(current()), owned()],
      outputs: [current({ stateIndex: 6 }), basic(alice.address)],
      unlockers: [controller, { alias: 0 }],
    });
  });

  it("does not unlock it under a governance transition (9)", () => {
    assertConflict(ConflictReason.InvalidInputUnlock, {
      inputs: [consumed(current()), owned()],
      outputs: [current(), basic(alice.address)],
      unlockers: [governor, { alias: 0 }],
    });
  });

  it("rejects an alias unlock that references another input, or a reference unlock (9)", () => {
    assertConflict(ConflictReason.InvalidInputUnlock, {
      inputs: [consumed(basic(alice.address)), consumed(current()), owned()],
      outputs: [current({ stateIndex: 6 }), basic(alice.address, { amount: 2n * AMOUNT })],
      unlockers: [alice, controller, { alias: 0 }],
    });
    assertConflict(ConflictReason.InvalidInputUnlock, {
      inputs: [consumed(current()), owned()],
      outputs: [current({ stateIndex: 6 }), basic(alice.address)],
      unlockers: [controller, { reference: 0 }],
    });
  });

  it("accepts the alias as sender only when it is state transitioned (11 otherwise)", () => {
    const sent = basic(alice.address, { features: [{ type: FeatureType.Sender, address: aliasAddress }] });
    const input = () => [consumed(current()), consumed(basic(controller.address))];
    assertValid({
      inputs: input(),
      outputs: [current({ stateIndex: 6 }), sent],
      unlockers: [controller, controller],
    });
    assertConflict(ConflictReason.InvalidSender, {
      inputs: [consumed(current()), consumed(basic(governor.address))],
      outputs: [current({ stateController: alice.address }), sent],
      unlockers: [governor, governor],
    });
  });
});
