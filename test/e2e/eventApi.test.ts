import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import mqtt from "mqtt";
import { addressToBech32 } from "../../src/codec/address.js";
import type { Json } from "../helpers/iota.js";
import { waitForReferenced } from "../helpers/milestones.js";
import { client, NodeProcess } from "../helpers/nodeProcess.js";
import { waitFor } from "../helpers/waitFor.js";
import { DevWallet, devWallet } from "../helpers/wallet.js";
import { EventSubscriber } from "./helpers/eventSubscriber.js";

/**
 * The event API across a network (real processes): a coordinator A serving MQTT over TCP too
 * (`--mqtt-port`) and a follower B. Subscribers of `@iota/mqtt.js` on both record what each
 * publishes while the dev wallet pays; for every milestone both saw, A and B published the same
 * confirmed milestone, the same referenced blocks' metadata in the same order and the same
 * outputs. A plain MQTT client over TCP gets the current milestone at once, then each new one.
 */
describe("event API: a follower publishes what the coordinator publishes; MQTT over TCP", () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let onA: EventSubscriber;
  let onB: EventSubscriber;
  let tcp: mqtt.MqttClient;
  const overTcp: { topic: string; index: number }[] = [];
  const dev = addressToBech32(devWallet().address, "tst");
  const topics = ["block-metadata/referenced", `outputs/unlock/address/${dev}`, `outputs/unlock/address/${dev}/spent`];

  before(async () => {
    a = await NodeProcess.create("a", [], { mqtt: true });
    a.start();
    b = await NodeProcess.follower("b", a, [await a.address()]);
    b.start();
    await waitFor(async () => ((await b.info()).status.isSynced ? true : undefined), 30_000, "B synced");
    onA = await EventSubscriber.connect(a.url, topics);
    onB = await EventSubscriber.connect(b.url, topics);
  });
  after(async () => {
    onA?.close();
    onB?.close();
    await tcp?.endAsync(true);
    for (const n of [b, a]) await n?.dispose();
  });

  it("serves plain MQTT over TCP: the current milestone at once, then every new one", async () => {
    tcp = await mqtt.connectAsync(`mqtt://127.0.0.1:${a.mqttPort}`, { reconnectPeriod: 0 });
    tcp.on("message", (topic, payload) => overTcp.push({ topic, index: JSON.parse(payload.toString()).index }));
    await tcp.subscribeAsync(["milestone-info/latest", "milestone-info/confirmed"]);
    await waitFor(async () => (overTcp.length >= 2 ? true : undefined), 5_000, "the current state");
    const at = overTcp[1]!.index;
    await waitFor(
      async () => (overTcp.filter((m) => m.index >= at + 3).length >= 2 ? true : undefined),
      10_000,
      "three more milestones",
    );
    const confirmed = overTcp.filter((m) => m.topic === "milestone-info/confirmed").map((m) => m.index);
    assert.deepEqual(
      confirmed,
      Array.from({ length: confirmed.length }, (_, i) => confirmed[0]! + i),
    );
  });

  it("publishes on the follower the same events as on the coordinator, milestone by milestone", async () => {
    const wallet = new DevWallet(client(a));
    let last = "";
    for (let n = 1; n <= 6; n++) last = await wallet.pay(n);
    const paidAt = (await waitForReferenced(client(a), last, 20_000, "the payments confirmed on A"))
      .referencedByMilestoneIndex as number;
    await waitFor(
      async () =>
        onA.on("milestone-info/confirmed").some((m) => m.index > paidAt + 1) &&
        onB.on("milestone-info/confirmed").some((m) => m.index > paidAt + 1)
          ? true
          : undefined,
      30_000,
      "both past the payments",
    );
    const range = (s: EventSubscriber) => s.on("milestone-info/confirmed").map((m) => m.index as number);
    const from = Math.max(range(onA)[0]!, range(onB)[0]!) + 1;
    const to = Math.min(range(onA).at(-1)!, range(onB).at(-1)!);
    assert.ok(to >= paidAt, `milestones ${from}..${to} cover the payments at ${paidAt}`);
    const inRange = (m: Json) => m.index >= from && m.index <= to;
    assert.deepEqual(
      onB.on("milestone-info/confirmed").filter(inRange),
      onA.on("milestone-info/confirmed").filter(inRange),
    );
    const referenced = (s: EventSubscriber) =>
      s
        .on("block-metadata/referenced")
        .filter((m) => m.referencedByMilestoneIndex >= from && m.referencedByMilestoneIndex <= to);
    assert.ok(referenced(onA).length >= 6);
    assert.deepEqual(referenced(onB), referenced(onA));
    for (const topic of topics.slice(1)) {
      const outputs = (s: EventSubscriber) =>
        s.on(topic).filter((o) => {
          const index = o.metadata.isSpent ? o.metadata.milestoneIndexSpent : o.metadata.milestoneIndexBooked;
          return index >= from && index <= to;
        });
      assert.ok(outputs(onA).length >= 6, topic);
      assert.deepEqual(outputs(onB), outputs(onA), topic);
    }
  });
});
