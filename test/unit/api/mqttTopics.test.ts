import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acceptSubscription } from "../../../src/api/mqtt/topics.js";
import { addressToBech32 } from "../../../src/codec/address.js";

const HRP = "tst";
const hex = (bytes: number, b = "ab") => `0x${b.repeat(bytes)}`;
const bech32 = addressToBech32({ type: 0, pubKeyHash: new Uint8Array(32).fill(7) }, HRP);

describe("event API topics (TIP-28 as inx-mqtt names them)", () => {
  it("takes the topics inx-mqtt publishes on, with the current state they are owed", () => {
    for (const t of [
      "milestones",
      "blocks",
      "blocks/transaction",
      "blocks/transaction/tagged-data",
      `blocks/transaction/tagged-data/${hex(4)}`,
      "blocks/tagged-data",
      `blocks/tagged-data/${hex(64)}`,
      "block-metadata/referenced",
      "receipts",
      `outputs/alias/${hex(32)}`,
      `outputs/nft/${hex(32)}`,
      `outputs/foundry/${hex(38)}`,
      `outputs/unlock/address/${bech32}`,
      `outputs/unlock/+/${bech32}/spent`,
      `outputs/unlock/immutable-alias/${bech32}`,
    ]) {
      assert.deepEqual(acceptSubscription(t, HRP), {}, t);
    }
    assert.deepEqual(acceptSubscription("milestone-info/latest", HRP), { current: { kind: "milestoneLatest" } });
    assert.deepEqual(acceptSubscription(`block-metadata/${hex(32)}`, HRP), {
      current: { kind: "blockMetadata", blockIdHex: hex(32) },
    });
    assert.deepEqual(acceptSubscription(`outputs/${hex(34)}`, HRP), {
      current: { kind: "output", outputIdHex: hex(34) },
    });
    assert.deepEqual(acceptSubscription(`transactions/${hex(32)}/included-block`, HRP), {
      current: { kind: "includedBlock", transactionIdHex: hex(32) },
    });
  });

  it("refuses wildcards, malformed IDs, unknown conditions and foreign addresses", () => {
    const foreign = addressToBech32({ type: 0, pubKeyHash: new Uint8Array(32) }, "rms");
    for (const t of [
      "#",
      "+",
      "blocks/+",
      "blocks/#",
      "milestone-info/+",
      `block-metadata/${hex(31)}`,
      `block-metadata/${hex(32, "AB")}`,
      `block-metadata/${hex(32)}/extra`,
      "blocks/tagged-data/0x",
      `blocks/tagged-data/${hex(65)}`,
      `outputs/${hex(33)}`,
      `outputs/foundry/${hex(32)}`,
      `outputs/unlock/sender/${bech32}`,
      `outputs/unlock/address/${foreign}`,
      `outputs/unlock/address/${bech32}/spent/more`,
      `outputs/unlock/address/${bech32}/unspent`,
      `transactions/${hex(32)}`,
      "",
      "/",
    ]) {
      assert.equal(acceptSubscription(t, HRP), undefined, t);
    }
  });
});
