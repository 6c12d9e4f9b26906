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
  consumed,
  idOf,
  implicitNftId,
  type NftFields,
  nft,
  nftAddressOf,
} from "../../helpers/txBuilder.js";

const nftId = idOf("nft");
const nftAddress = nftAddressOf(nftId);
const owned = (fields: Partial<NftFields> = {}) => nft({ nftId, owner: alice.address, ...fields });
const metadata = (byte: number) => ({ type: FeatureType.Metadata, data: Uint8Array.of(byte) }) as const;
const issuer = (who: typeof alice) => ({ type: FeatureType.Issuer, address: who.address }) as const;

describe("semantic validation: NFT creation (TIP-18)", () => {
  it("accepts a new NFT with a zero ID and an issuer unlocked by the transaction", () => {
    assertValid({
      inputs: [consumed(basic(alice.address))],
      outputs: [nft({ owner: bob.address, immutableFeatures: [issuer(alice)] })],
      unlockers: [alice],
    });
  });

  it("rejects an issuer the transaction does not unlock (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(basic(alice.address))],
      outputs: [nft({ owner: bob.address, immutableFeatures: [issuer(bob)] })],
      unlockers: [alice],
    });
  });

  it("rejects an NFT ID on the output side that no input holds (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(basic(alice.address))],
      outputs: [owned()],
      unlockers: [alice],
    });
  });
});

describe("semantic validation: NFT transition and destruction (TIP-18)", () => {
  it("accepts a transfer that keeps the immutable features", () => {
    assertValid({
      inputs: [consumed(owned({ immutableFeatures: [metadata(1)] }))],
      outputs: [owned({ owner: bob.address, immutableFeatures: [metadata(1)], features: [metadata(2)] })],
      unlockers: [alice],
    });
  });

  it("resolves the implicit ID of an NFT consumed for the first time", () => {
    const input = consumed(nft({ owner: alice.address }));
    assertValid({
      inputs: [input],
      outputs: [nft({ nftId: implicitNftId(input), owner: bob.address })],
      unlockers: [alice],
    });
  });

  it("rejects a change of immutable features (12)", () => {
    assertConflict(ConflictReason.InvalidChainStateTransition, {
      inputs: [consumed(owned({ immutableFeatures: [metadata(1)] }))],
      outputs: [owned({ immutableFeatures: [metadata(2)] })],
      unlockers: [alice],
    });
  });

  it("accepts burning the NFT", () => {
    assertValid({ inputs: [consumed(owned())], outputs: [basic(alice.address)], unlockers: [alice] });
  });

  it("holds an NFT to its storage deposit return (8 when not returned)", () => {
    const sent = owned({
      owner: bob.address,
      unlockConditions: [
        { type: UnlockConditionType.StorageDepositReturn, returnAddress: alice.address, amount: 60_000n },
      ],
    });
    assertValid({
      inputs: [consumed(sent)],
      outputs: [owned({ owner: bob.address, amount: AMOUNT - 60_000n }), basic(alice.address, { amount: 60_000n })],
      unlockers: [bob],
    });
    assertConflict(ConflictReason.ReturnAmountNotFulfilled, {
      inputs: [consumed(sent)],
      outputs: [owned({ owner: bob.address })],
      unlockers: [bob],
    });
  });
});

describe("semantic validation: NFT addresses (TIP-18 NFT unlocking, sender feature)", () => {
  const ownedByNft = () => consumed(basic(nftAddress));

  it("unlocks an output owned by the NFT with an NFT unlock", () => {
    assertValid({
      inputs: [consumed(owned()), ownedByNft()],
      outputs: [owned(), basic(alice.address)],
      unlockers: [alice, { nft: 0 }],
    });
  });

  it("rejects an alias unlock for an output owned by the NFT (9)", () => {
    assertConflict(ConflictReason.InvalidInputUnlock, {
      inputs: [consumed(owned()), ownedByNft()],
      outputs: [owned(), basic(alice.address)],
      unlockers: [alice, { alias: 0 }],
    });
  });

  it("accepts the NFT as sender when it is consumed (11 otherwise)", () => {
    const sent = basic(bob.address, { features: [{ type: FeatureType.Sender, address: nftAddress }] });
    assertValid({ inputs: [consumed(owned())], outputs: [sent], unlockers: [alice] });
    assertConflict(ConflictReason.InvalidSender, {
      inputs: [consumed(basic(alice.address))],
      outputs: [sent],
      unlockers: [alice],
    });
  });
});
