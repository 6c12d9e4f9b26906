import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { defaultApiAuthOptions, issueApiToken } from "../../../src/api/auth.js";
import { defaultApiServerOptions } from "../../../src/api/server.js";
import { addressToBech32 } from "../../../src/codec/address.js";
import { bytesEqual, toHex } from "../../../src/codec/hex.js";
import { computeTransactionId, outputIdFromParts } from "../../../src/codec/ids.js";
import { ed25519KeyPairFromSeed } from "../../../src/crypto/ed25519.js";
import { networkConfigPath } from "../../../src/network/index.js";
import { DEFAULT_DEV_MNEMONIC, DEV_ACCOUNT_BALANCE, deriveDevAccounts } from "../../../src/node/devAccounts.js";
import { DEV_TOKEN_SUPPLY, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import { isNodeError } from "../../../src/node/errors.js";
import { DevErrorCode, isDevError } from "../../../src/tangle/errors.js";
import {
  assertError,
  basicTo,
  CORE,
  DEV,
  devTransaction,
  type Harness,
  inject,
  json,
  openHarness,
  post,
  postTransaction,
} from "../../helpers/coreHarness.js";
import { iotaCrypto } from "../../helpers/iota.js";
import { openNode, removeDir, tempDir } from "../../helpers/node.js";
import { waitFor } from "../../helpers/waitFor.js";

/**
 * The dev routes over a real node (issue: a node for builders): accounts from the mnemonic
 * (checked against an independent SLIP-10 implementation), milestones on demand, the clock, and
 * saved states put back exactly; each bad input refused with its reason and nothing changed.
 */

/** Submits a tagged-data block carrying `data` and waits until a milestone references it; resolves with the ms it took. */
async function referencedAfterMs(h: Harness, data: string, timeoutMs: number): Promise<number> {
  const tagged = { protocolVersion: 2, payload: { type: 5, tag: "0x01", data } };
  const started = performance.now();
  const { blockId } = json<{ blockId: string }>(await post(h, `${CORE}/blocks`, tagged));
  await waitFor(
    async () =>
      json<{ referencedByMilestoneIndex?: number }>(await inject(h.app, `${CORE}/blocks/${blockId}/metadata`))
        .referencedByMilestoneIndex !== undefined,
    timeoutMs,
    `block ${data} referenced`,
  );
  return performance.now() - started;
}

describe("dev accounts", () => {
  it("are the SDK wallet's: m/44'/<coin>'/<account>'/0'/0' of the mnemonic by SLIP-10 Ed25519", () => {
    const ours = deriveDevAccounts({ mnemonic: DEFAULT_DEV_MNEMONIC, count: 3, coinType: 4219 });
    const { Bip32Path, Bip39, Blake2b, Slip0010 } = iotaCrypto;
    const seed = Bip39.mnemonicToSeed(DEFAULT_DEV_MNEMONIC);
    for (const a of ours) {
      const { privateKey } = Slip0010.derivePath(seed, new Bip32Path(`m/44'/4219'/${a.index}'/0'/0'`));
      const publicKey = Slip0010.getPublicKey(privateKey, false);
      assert.ok(bytesEqual(a.publicKey, publicKey), `account ${a.index}`);
      assert.ok(bytesEqual(a.address.pubKeyHash, Blake2b.sum256(publicKey)));
      assert.ok(bytesEqual(ed25519KeyPairFromSeed(a.seed).publicKey, publicKey));
    }
    const iota = deriveDevAccounts({ mnemonic: DEFAULT_DEV_MNEMONIC, count: 1, coinType: 4218 });
    assert.equal(iota[0]!.path, "m/44'/4218'/0'/0'/0'");
    assert.ok(!bytesEqual(iota[0]!.publicKey, ours[0]!.publicKey));
  });

  it("refuse a mnemonic that is not BIP-39, saying why", () => {
    for (const [mnemonic, why] of [
      ["not a mnemonic at all", /words/],
      ["test test test test test test test test test test test zzzz", /word list/],
      ["test test test test test test test test test test test test", /checksum/],
    ] as const) {
      assert.throws(
        () => deriveDevAccounts({ mnemonic, count: 1, coinType: 4219 }),
        (e) => isNodeError(e) && why.test(e.message),
      );
    }
  });
});

describe("dev routes", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness({ devAccounts: 3, milestones: "manual", minPowScore: 0 });
    await h.node.startNow();
  });
  after(() => h.close());

  it("list the funded accounts; the dev key holds the rest of the supply", async () => {
    const res = await inject(h.app, `${DEV}/accounts`);
    assert.equal(res.statusCode, 200, res.body);
    const body = json<{ coinType: number; accounts: { index: number; address: string; balance: string }[] }>(res);
    const derived = deriveDevAccounts({ mnemonic: DEFAULT_DEV_MNEMONIC, count: 3, coinType: 4219 });
    assert.equal(body.coinType, 4219);
    assert.deepEqual(
      body.accounts.map((a) => [a.index, a.address, a.balance]),
      derived.map((a) => [a.index, addressToBech32(a.address, "tst"), DEV_ACCOUNT_BALANCE.toString()]),
    );
    const genesis = await inject(h.app, `${CORE}/outputs/${toHex(GENESIS_OUTPUT_ID)}`);
    assert.equal(
      json<{ output: { amount: string } }>(genesis).output.amount,
      (DEV_TOKEN_SUPPLY - 3n * DEV_ACCOUNT_BALANCE).toString(),
    );
  });

  it("issue milestones when asked, none otherwise (manual); refuse 0 or too many", async () => {
    const before = h.node.tangle.latestMilestone.index;
    const tagged = { protocolVersion: 2, payload: { type: 5, tag: "0x01", data: "0x02" } };
    assert.equal((await post(h, `${CORE}/blocks`, tagged)).statusCode, 201);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(h.node.tangle.latestMilestone.index, before, "manual: no milestone came by itself");
    const res = await post(h, `${DEV}/milestones`, { count: 3 });
    assert.equal(res.statusCode, 200, res.body);
    const issued = json<{ milestones: { index: number; timestamp: number }[] }>(res).milestones;
    assert.deepEqual(
      issued.map((m) => m.index),
      [before + 1, before + 2, before + 3],
    );
    assert.ok(issued[1]!.timestamp > issued[0]!.timestamp);
    assertError(await post(h, `${DEV}/milestones`, { count: 0 }), 400, /count/);
    assertError(await post(h, `${DEV}/milestones`, { count: 10_000 }), 400, /count/);
    assert.equal(h.node.tangle.latestMilestone.index, before + 3, "nothing issued by a refused request");
  });

  it("move the clock forward only; the next milestone carries it", async () => {
    const now = json<{ offsetSeconds: number; timestamp: number }>(await inject(h.app, `${DEV}/time`));
    assertError(await post(h, `${DEV}/time`, { timestamp: now.timestamp - 100 }), 400, /not ahead/);
    assertError(await post(h, `${DEV}/time`, {}), 400, /increaseSeconds or timestamp/);
    assertError(await post(h, `${DEV}/time`, { increaseSeconds: 0 }), 400);
    assert.equal(json<{ offsetSeconds: number }>(await inject(h.app, `${DEV}/time`)).offsetSeconds, now.offsetSeconds);
    const moved = json<{ offsetSeconds: number }>(await post(h, `${DEV}/time`, { increaseSeconds: 3600 }));
    assert.equal(moved.offsetSeconds, now.offsetSeconds + 3600);
    const [m] = json<{ milestones: { timestamp: number }[] }>(await post(h, `${DEV}/milestones`)).milestones;
    assert.ok(m!.timestamp >= now.timestamp + 3600, `${m!.timestamp}`);
  });

  it("put a saved state back exactly, and drop it and the later ones", async () => {
    const info = async () => {
      const i = json<{ status: object; metrics: object }>(await inject(h.app, `${CORE}/info`));
      return { status: i.status, metrics: i.metrics };
    };
    const saved = json<{ id: string; milestoneIndex: number }>(await post(h, `${DEV}/state`));
    const before = { info: await info(), time: json<object>(await inject(h.app, `${DEV}/time`)) };
    // a payment from the dev key and a milestone confirming it, the clock moved, a later save
    const dev = deriveDevAccounts({ mnemonic: DEFAULT_DEV_MNEMONIC, count: 1, coinType: 4219 })[0]!;
    const genesis = await inject(h.app, `${CORE}/outputs/${toHex(GENESIS_OUTPUT_ID)}`);
    const amount = BigInt(json<{ output: { amount: string } }>(genesis).output.amount);
    const { devWallet } = await import("../../helpers/wallet.js");
    const key = devWallet();
    const tx = devTransaction(
      [{ outputId: GENESIS_OUTPUT_ID, output: basicTo(key.address.pubKeyHash, amount) }],
      [basicTo(dev.address.pubKeyHash, 1_000_000n), basicTo(key.address.pubKeyHash, amount - 1_000_000n)],
      key.keyPair,
    );
    assert.equal((await postTransaction(h.app, tx)).statusCode, 201);
    await post(h, `${DEV}/milestones`);
    await post(h, `${DEV}/time`, { increaseSeconds: 60 });
    const later = json<{ id: string }>(await post(h, `${DEV}/state`));
    const paid = toHex(outputIdFromParts(computeTransactionId(tx), 0));
    assert.equal((await inject(h.app, `${CORE}/outputs/${paid}`)).statusCode, 200);

    const reverted = await post(h, `${DEV}/state/${saved.id}/revert`);
    assert.equal(reverted.statusCode, 200, reverted.body);
    assert.deepEqual(json(reverted), { milestoneIndex: saved.milestoneIndex, dropped: [saved.id, later.id] });
    assert.deepEqual(await info(), before.info);
    const time = json<{ offsetSeconds: number }>(await inject(h.app, `${DEV}/time`));
    assert.equal(time.offsetSeconds, (before.time as { offsetSeconds: number }).offsetSeconds);
    assert.equal((await inject(h.app, `${CORE}/outputs/${paid}`)).statusCode, 404);
    assert.equal(
      json<{ output: { amount: string } }>(await inject(h.app, `${CORE}/outputs/${toHex(GENESIS_OUTPUT_ID)}`)).output
        .amount,
      amount.toString(),
    );
    assertError(await post(h, `${DEV}/state/${later.id}/revert`), 404, /no saved state/);
    assert.deepEqual(json(await inject(h.app, `${DEV}/state`)), { states: [] });
    // the node goes on: a block and a milestone after the revert
    assert.equal((await postTransaction(h.app, tx)).statusCode, 201);
    const [m] = json<{ milestones: { index: number }[] }>(await post(h, `${DEV}/milestones`)).milestones;
    assert.equal(m!.index, saved.milestoneIndex + 1);
    await waitFor(async () => (await inject(h.app, `${CORE}/outputs/${paid}`)).statusCode === 200, 5000, "paid again");
  });

  it("refuse a revert while blocks are being submitted, and lose none of them", async () => {
    const saved = json<{ id: string }>(await post(h, `${DEV}/state`));
    // submissions started in this turn are in the intake when the revert is asked, in the same turn
    const submissions = Array.from({ length: 50 }, (_, i) =>
      h.node.intake.submitDraft(
        (parents) => ({
          protocolVersion: 2,
          parents,
          payload: { type: 5, tag: Uint8Array.of(2), data: Uint8Array.of(i) },
          nonce: 0n,
        }),
        "api",
      ),
    );
    await assert.rejects(
      h.node.dev!.revertState(saved.id),
      (e) => isDevError(e, DevErrorCode.Busy) && /50 blocks are being submitted/.test(e.message),
    );
    for (const verdict of await Promise.all(submissions)) {
      assert.equal(verdict.kind, "accepted", verdict.kind === "accepted" ? "" : verdict.details);
      const id = toHex((verdict as { blockId: Uint8Array }).blockId);
      assert.equal((await inject(h.app, `${CORE}/blocks/${id}`)).statusCode, 200, "nothing lost");
    }
    assert.equal(
      json<{ states: unknown[] }>(await inject(h.app, `${DEV}/state`)).states.length,
      1,
      "the state is kept",
    );
    // once every submission is answered, the revert goes through
    assert.equal((await post(h, `${DEV}/state/${saved.id}/revert`)).statusCode, 200);
  });

  it("reset to genesis: the first milestone issued again, every state dropped", async () => {
    const res = await post(h, `${DEV}/reset`);
    assert.equal(res.statusCode, 200, res.body);
    const body = json<{ milestoneIndex: number; dropped: string[] }>(res);
    assert.equal(body.milestoneIndex, 1);
    assert.equal(body.dropped.length, 0);
    assert.equal(h.node.tangle.latestMilestone.index, 1);
    assert.equal(json<{ offsetSeconds: number }>(await inject(h.app, `${DEV}/time`)).offsetSeconds, 0);
    const accounts = json<{ accounts: { balance: string }[] }>(await inject(h.app, `${DEV}/accounts`)).accounts;
    assert.ok(accounts.every((a) => a.balance === DEV_ACCOUNT_BALANCE.toString()));
  });
});

describe("auto milestones", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness({ devAccounts: 0, milestones: "auto", minPowScore: 0 });
    await h.node.startNow();
  });
  after(() => h.close());

  it("confirm a block within milliseconds of its arrival", async () => {
    const took = await referencedAfterMs(h, "0x02", 2000);
    assert.ok(took < 1000, `${took.toFixed(0)} ms`);
  });
});

describe("auto milestones in a burst", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness({ devAccounts: 0, milestones: "auto", minPowScore: 0, milestoneMaxLeadSeconds: 2 });
    await h.node.startNow();
  });
  after(() => h.close());

  it("run ahead of the clock by at most --milestone-max-lead, then wait for it", async () => {
    const leads: number[] = [];
    for (let i = 0; i < 6; i++) {
      await referencedAfterMs(h, `0x0${i}`, 5000);
      leads.push(h.node.tangle.latestMilestone.timestamp - Math.floor(Date.now() / 1000));
    }
    // one second per milestone at most ahead: never more than the limit and the second in progress
    assert.ok(Math.max(...leads) <= 3, `leads ${leads.join(", ")}`);
    assert.ok(leads.at(-1)! >= 1, `the burst moved the clock ahead: ${leads.join(", ")}`);
  });

  it("count their lead from milestones asked for, so a requested burst far ahead holds no block back", async () => {
    const { milestones } = json<{ milestones: { timestamp: number }[] }>(
      await post(h, "/api/dev/v1/milestones", { count: 20 }),
    );
    const ahead = milestones.at(-1)!.timestamp - Math.floor(Date.now() / 1000);
    assert.ok(ahead >= 15, `the burst is ${ahead} s ahead, the limit 2 s`);
    for (let i = 0; i < 3; i++) {
      const took = await referencedAfterMs(h, `0x1${i}`, 10_000);
      assert.ok(took < 1500, `block ${i} referenced after ${took.toFixed(0)} ms`);
    }
  });

  it("give that lead back as the clock catches up: later, the limit counts from the clock again", async () => {
    const { milestones } = json<{ milestones: { timestamp: number }[] }>(
      await post(h, "/api/dev/v1/milestones", { count: 1 }),
    );
    const ahead = () => h.node.tangle.latestMilestone.timestamp - Math.floor(Date.now() / 1000);
    // idle until the clock has passed the latest milestone
    await waitFor(() => ahead() < 0, 40_000, `the clock past ${milestones[0]!.timestamp}`);
    const leads: number[] = [];
    for (let i = 0; i < 5; i++) {
      await referencedAfterMs(h, `0x2${i}`, 5000);
      leads.push(ahead());
    }
    assert.ok(Math.max(...leads) <= 3, `leads ${leads.join(", ")}: the limit of 2 s counts from the clock`);
  });
});

describe("dev accounts of a resumed data directory", () => {
  it("are those its genesis funded, whatever --dev-* says at a later start", async () => {
    const dir = await tempDir("dev-accounts");
    try {
      const first = await openNode(dir, { devAccounts: 2, milestones: "manual" });
      const funded = (await first.dev!.accounts()).accounts.map((a) => toHex(a.publicKey));
      await first.close();
      const again = await openNode(dir, {
        devAccounts: 5,
        devMnemonic: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
        milestones: "manual",
      });
      try {
        const { accounts } = await again.dev!.accounts();
        assert.deepEqual(
          accounts.map((a) => toHex(a.publicKey)),
          funded,
        );
        assert.ok(accounts.every((a) => a.balance === DEV_ACCOUNT_BALANCE));
      } finally {
        await again.close();
      }
    } finally {
      await removeDir(dir);
    }
  });
});

describe("a follower of a coordinator that issues milestones on demand", () => {
  it("learns the mode from network.json, so an idle network is a healthy one to it", async () => {
    const [a, b] = [await tempDir("on-demand-coordinator"), await tempDir("on-demand-follower")];
    try {
      const coordinator = await openNode(a, { milestones: "auto" });
      await coordinator.close();
      const file = JSON.parse(await readFile(networkConfigPath(a), "utf8")) as { milestones?: string };
      assert.equal(file.milestones, "auto");
      const follower = await openNode(b, { networkConfig: networkConfigPath(a) });
      try {
        assert.equal(follower.isCoordinator, false);
        assert.equal(follower.options.milestones, "auto");
      } finally {
        await follower.close();
      }
      // back to interval: the file says so again
      await (await openNode(a, { milestones: "interval" })).close();
      assert.equal(
        (JSON.parse(await readFile(networkConfigPath(a), "utf8")) as { milestones?: string }).milestones,
        undefined,
      );
    } finally {
      await Promise.all([removeDir(a), removeDir(b)]);
    }
  });
});

describe("dev routes behind --protected-routes", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness(
      { devAccounts: 0, milestones: "manual", minPowScore: 0 },
      {
        ...defaultApiServerOptions,
        auth: { publicRoutes: ["/*"], protectedRoutes: [...defaultApiAuthOptions.protectedRoutes, "/api/dev/v1/*"] },
      },
    );
    await h.node.startNow();
  });
  after(() => h.close());

  it("need a JWT like any protected route", async () => {
    assertError(await post(h, `${DEV}/state`), 403);
    assertError(await inject(h.app, `${DEV}/accounts`), 403);
    assert.deepEqual(h.node.dev!.savedStates(), [], "nothing saved");
    const authorization = `Bearer ${await issueApiToken(h.node.jwtSecret)}`;
    const res = await inject(h.app, { method: "POST", url: `${DEV}/state`, headers: { authorization } });
    assert.equal(res.statusCode, 200, res.body);
  });
});
