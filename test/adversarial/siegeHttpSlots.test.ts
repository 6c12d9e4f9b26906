import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import { ATTACKER_ADDRESSES, describeProbes, destroyAll, probeHonestly, startCadence } from "./helpers/siege.js";

/**
 * Threat: four addresses lock every new client out of the HTTP API. From each of four addresses,
 * 64 connections (the per-address cap) each start a `POST /api/core/v2/blocks` announcing a
 * 10,000-byte body and trickle it a space every 2 s, reopening at once whenever closed. Every one
 * of the 256 connections has a request in progress, so none is idle and none can be closed to
 * make room: a new client from another address finds the total cap full. The node must cut off
 * a body arriving below its minimum rate (HTTP 400 naming the minimum, then close), so the
 * trickling connections stop holding slots, and an honest client from 127.0.0.1 keeps being
 * answered while milestones stay on cadence.
 */

const PER_ADDRESS = 64;
const HEADERS =
  "POST /api/core/v2/blocks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{";

describe("siege: trickled request bodies hold every HTTP slot", { timeout: 90_000 }, () => {
  let node: NodeProcess;
  let port: number;
  let stopped = false;
  const sockets = new Set<Socket>();
  /** Answers the attackers received: when, and the text. */
  const answers: { at: number; text: string }[] = [];
  let attackStarted = 0;
  let trickle: NodeJS.Timeout | undefined;

  before(async () => {
    node = await startNodeProcess(["--p2p-port", "0"]);
    port = Number(new URL(node.url).port);
  });
  after(async () => {
    stopped = true;
    clearInterval(trickle);
    destroyAll(sockets);
    await node?.close();
  });

  /** One trickling connection from `localAddress`; a new one replaces it whenever it closes. */
  const attack = (localAddress: string): void => {
    if (stopped) return;
    const s = connect({ port, host: "127.0.0.1", localAddress });
    sockets.add(s);
    let answer: { at: number; text: string } | undefined;
    s.on("error", () => {});
    s.on("connect", () => s.write(HEADERS));
    s.on("data", (d) => {
      if (!answer) {
        answer = { at: Date.now(), text: "" };
        answers.push(answer);
      }
      answer.text += d;
    });
    s.once("close", () => {
      sockets.delete(s);
      setImmediate(() => attack(localAddress));
    });
  };

  it("keeps answering an honest client while 4 × 64 connections trickle request bodies", async () => {
    const cadence = await startCadence(node.url);
    attackStarted = Date.now();
    for (const address of ATTACKER_ADDRESSES) for (let i = 0; i < PER_ADDRESS; i++) attack(address);
    trickle = setInterval(() => {
      for (const s of sockets) if (s.writable && !s.connecting) s.write(" ");
    }, 2_000);
    // let the attackers take their slots before the honest client starts asking
    await new Promise((r) => setTimeout(r, 1_000));

    const probes = await probeHonestly(node.url, 20_000);
    const milestones = await cadence.check();

    assert.ok(probes.percent >= 95, describeProbes(probes));
    assert.ok(milestones.ok, milestones.text);
    const cutOff = answers.find((a) => /^HTTP\/1\.1 400 /.test(a.text) && /"details":"[^"]*minimum[^"]*"/.test(a.text));
    assert.ok(
      cutOff && cutOff.at - attackStarted <= 10_000,
      cutOff
        ? `the first trickling request was cut off ${cutOff.at - attackStarted} ms into the attack (limit 10,000 ms)`
        : `no trickling request got a 400 naming the minimum body rate; ${answers.length} answers, first: ${JSON.stringify(answers[0]?.text.slice(0, 300))}`,
    );
  });
});
