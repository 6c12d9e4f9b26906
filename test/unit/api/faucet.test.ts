import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { buildServer } from "../../../src/api/server.js";
import { addressToBech32 } from "../../../src/codec/address.js";
import { DEV_TOKEN_SUPPLY } from "../../../src/node/devNetwork.js";
import { assertError, type Harness, openHarness, viewWith } from "../../helpers/coreHarness.js";
import { wallet } from "../../helpers/txBuilder.js";
import { devWallet } from "../../helpers/wallet.js";

/**
 * The faucet's routes in process, on a dev node whose faucet pays from the dev key: inx-faucet's
 * answers (`info`, 202 on `enqueue`), its refusals with its words, the per-client limit and the
 * answer of a node without a faucet.
 */

const INFO = "/api/faucet/v1/info";
const ENQUEUE = "/api/faucet/v1/enqueue";
const AMOUNT = 1_000_000_000;

let n = 0;
const fresh = () => addressToBech32(wallet(`faucet route ${n++} ${process.pid}`).address, "tst");

describe("faucet routes", () => {
  let h: Harness;
  const enqueue = (address: unknown, remoteAddress = "127.0.0.1") =>
    h.app.inject({ method: "POST", url: ENQUEUE, payload: { address }, remoteAddress });

  before(async () => {
    h = await openHarness({ minPowScore: 0, faucetClientRequests: 6 });
  });
  after(async () => {
    await h.close();
  });

  it("before the first milestone the node is not healthy: info says so, enqueue answers 503", async () => {
    const info = (await h.app.inject(INFO)).json();
    assert.equal(info.isHealthy, false);
    assertError(await enqueue(fresh(), "198.51.100.9"), 503, /^Faucet node is not synchronized\/healthy/);
  });

  it("info: inx-faucet's fields, the balance a JSON integer with every digit", async () => {
    await h.node.coordinator.issueMilestone();
    const res = await h.app.inject(INFO);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, new RegExp(`"balance":${DEV_TOKEN_SUPPLY}[,}]`));
    const info = res.json();
    assert.deepEqual(Object.keys(info), ["isHealthy", "address", "balance", "tokenName", "bech32Hrp"]);
    assert.deepEqual(info, {
      isHealthy: true,
      address: addressToBech32(devWallet().address, "tst"),
      balance: Number(DEV_TOKEN_SUPPLY),
      tokenName: "Dev Token",
      bech32Hrp: "tst",
    });
  });

  it("enqueue: 202 with the address and the waiting requests; the balance counts them", async () => {
    await h.node.coordinator.issueMilestone();
    const a = fresh();
    const res = await enqueue(a);
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(res.json(), { address: a, waitingRequests: 1 });
    const b = fresh();
    assert.deepEqual((await enqueue(b)).json(), { address: b, waitingRequests: 2 });
    assert.equal((await h.app.inject(INFO)).json().balance, Number(DEV_TOKEN_SUPPLY) - 2 * AMOUNT);
    assertError(await enqueue(a), 400, /^Address is already in the queue\.$/);
  });

  it("refuses a bad address, another network's, a rich address, and a malformed body (400)", async () => {
    const client = "198.51.100.1";
    assertError(await enqueue("tst1notanaddress", client), 400, /^Invalid bech32 address provided!$/);
    assertError(
      await enqueue(addressToBech32(devWallet().address, "rms"), client),
      400,
      /^Invalid bech32 address provided! Address does not start with "tst"\.$/,
    );
    await h.node.coordinator.issueMilestone();
    assertError(
      await enqueue(addressToBech32(devWallet().address, "tst"), client),
      400,
      /^You already have enough funds on your address\.$/,
    );
    assertError(
      await h.app.inject({ method: "POST", url: ENQUEUE, payload: {}, remoteAddress: "198.51.100.2" }),
      400,
      /address/,
    );
  });

  it("limits each client (IP address), counting every call, malformed ones too", async () => {
    const client = "203.0.113.5";
    for (let i = 0; i < 6; i++) assertError(await enqueue("nonsense", client), 400, /^Invalid bech32/);
    assertError(await enqueue(fresh(), client), 400, /^rate limit exceeded: too many requests from 203\.0\.113\.5/);
    // another client is not held back, and info is not limited
    await h.node.coordinator.issueMilestone();
    assert.equal((await enqueue(fresh(), "203.0.113.6")).statusCode, 202);
    assert.equal((await h.app.inject({ url: INFO, remoteAddress: client })).statusCode, 200);
  });

  it("pays the queue with the next milestones", async () => {
    const faucet = h.node.faucet!;
    assert.ok(faucet.waitingRequests > 0);
    for (let i = 0; i < 4 && faucet.waitingRequests > 0; i++) {
      await h.node.coordinator.issueMilestone();
      await faucet.idle();
    }
    assert.equal(faucet.waitingRequests, 0);
  });

  it("a node without a faucet answers 404 on both routes", async () => {
    const app = buildServer(viewWith(h.node, {}), "silent");
    try {
      assertError(await app.inject(INFO), 404, /^this node runs no faucet$/);
      assertError(await app.inject({ method: "POST", url: ENQUEUE, payload: { address: fresh() } }), 404, /no faucet/);
    } finally {
      await app.close();
    }
  });
});
