import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fromHex, toHex } from "../../../src/codec/hex.js";
import { computeMilestoneId } from "../../../src/codec/ids.js";
import { inclusionProofFromJson, inclusionProofRoot, inclusionProofToJson } from "../../../src/codec/inclusionProof.js";
import { transactionToJson } from "../../../src/codec/transaction.js";
import { ed25519KeyPairFromSeed, ed25519Sign } from "../../../src/crypto/ed25519.js";
import { DEV_TOKEN_SUPPLY, devGenesisOutput, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import { TangleErrorCode } from "../../../src/tangle/errors.js";
import { InclusionProofs } from "../../../src/tangle/inclusionProof.js";
import {
  assertError,
  basicTo,
  CORE,
  devTransaction,
  genesisPayment,
  type Harness,
  openHealthyHarness,
} from "../../helpers/coreHarness.js";
import { Rng } from "../../helpers/random.js";
import { devWallet } from "../../helpers/wallet.js";

const POI = "/api/poi/v1";

// biome-ignore lint/suspicious/noExplicitAny: proofs are JSON walked and changed field by field
type ProofJson = Record<string, any>;

describe("proof of inclusion routes (inx-poi)", () => {
  let h: Harness;
  let referenced: string[];
  let conflicting: string;
  let milestoneIndex: number;

  const submit = async (body: object): Promise<string> => {
    const res = await h.app.inject({ method: "POST", url: `${CORE}/blocks`, payload: body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().blockId;
  };
  const create = (id: string) => h.app.inject(`${POI}/create/${id}`);
  const validate = (body: unknown) =>
    h.app.inject({
      method: "POST",
      url: `${POI}/validate`,
      headers: { "content-type": "application/json" },
      payload: typeof body === "string" ? body : JSON.stringify(body),
    });
  const valid = async (body: unknown): Promise<boolean> => {
    const res = await validate(body);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(Object.keys(res.json()), ["valid"]);
    return res.json().valid;
  };
  const proofOf = async (id: string): Promise<ProofJson> => {
    const res = await create(id);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  before(async () => {
    h = await openHealthyHarness({ minPowScore: 0 });
    const dev = devWallet();
    const pay = genesisPayment(new Uint8Array(32).fill(3), 2_000_000n);
    const genesis = [{ outputId: GENESIS_OUTPUT_ID, output: devGenesisOutput() }];
    const double = devTransaction(genesis, [basicTo(dev.address.pubKeyHash, DEV_TOKEN_SUPPLY)], dev.keyPair);
    const payBlock = await submit({ protocolVersion: 2, payload: transactionToJson(pay) });
    conflicting = await submit({ protocolVersion: 2, parents: [payBlock], payload: transactionToJson(double) });
    for (let i = 0; i < 9; i++) await submit({ protocolVersion: 2, payload: { type: 5, tag: `0x0${i}`, data: "0x" } });
    await submit({ protocolVersion: 2 });
    const ms = await h.node.coordinator.issueMilestone();
    milestoneIndex = ms.index;
    referenced = (await h.node.db.milestoneBlocks.list(ms.index, { reverse: false, limit: 100 })).map((b) =>
      toHex(b.blockId),
    );
  });
  after(async () => {
    await h.close();
  });

  it("proves every block of a milestone's cone, conflicting ones included, and each proof validates", async () => {
    assert.ok(referenced.length >= 13, `${referenced.length} blocks`);
    assert.ok(referenced.includes(conflicting));
    const stored = (await h.app.inject(`${CORE}/milestones/by-index/${milestoneIndex}`)).json();
    for (const id of referenced) {
      const p = await proofOf(id);
      assert.deepEqual(Object.keys(p), ["milestone", "block", "proof"]);
      assert.deepEqual(p.milestone, stored);
      assert.deepEqual(p.block, (await h.app.inject(`${CORE}/blocks/${id}`)).json());
      const read = inclusionProofFromJson(p);
      assert.equal(toHex(inclusionProofRoot(read.proof)), p.milestone.inclusionMerkleRoot);
      assert.ok(JSON.stringify(p.proof).includes(`{"value":"${id}"}`));
      assert.equal(await valid(p), true, id);
    }
  });

  it("is listed among the API plugins, as Hornet lists inx-poi's", async () => {
    assert.ok(((await h.app.inject("/api/routes")).json().routes as string[]).includes("poi/v1"));
  });

  it("proves a milestone block alone in its successor's cone (a single value leaf: the root is its leaf hash)", async () => {
    const before = h.node.tangle.latestMilestone;
    await h.node.coordinator.issueMilestone();
    const p = await proofOf(toHex(before.blockId));
    assert.deepEqual(p.proof, { value: toHex(before.blockId) });
    assert.equal(await valid(p), true);
  });

  it("makes the same proofs with a cache of one tree as with the route's, milestones alternating", async () => {
    const small = new InclusionProofs(() => h.node.tangle, { cachedTrees: 1, cachedBlocks: 1 });
    const previous = toHex(h.node.tangle.latestMilestone.blockId);
    await h.node.coordinator.issueMilestone();
    for (const id of [referenced[0]!, previous, referenced[1]!, previous, referenced[2]!]) {
      const made = inclusionProofToJson(await small.create(fromHex(id, "blockId", 32)));
      assert.deepEqual(made, await proofOf(id));
    }
  });

  it("builds at most two trees at a time, never one twice, and refuses more with ProofBusy (503)", async () => {
    // the milestone blocks of three milestones in a row, each proven by its successor's tree
    const milestoneBlocks: string[] = [];
    for (let i = 0; i < 3; i++) {
      milestoneBlocks.push(toHex(h.node.tangle.latestMilestone.blockId));
      await h.node.coordinator.issueMilestone();
    }
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let builds = 0;
    const source = () => {
      const t = h.node.tangle;
      const db = {
        milestones: t.db.milestones,
        milestoneBlocks: {
          list: async (...args: Parameters<typeof t.db.milestoneBlocks.list>) => {
            if (args[1]?.from === 0) builds++;
            await gate;
            return t.db.milestoneBlocks.list(...args);
          },
        },
      } as unknown as typeof t.db;
      return { db, getBlockBytes: t.getBlockBytes.bind(t), getMetadata: t.getMetadata.bind(t) };
    };
    const gated = new InclusionProofs(source, { cachedTrees: 1, cachedBlocks: 1 });
    const id = (hex: string) => fromHex(hex, "blockId", 32);
    const first = gated.create(id(milestoneBlocks[0]!));
    const second = gated.create(id(milestoneBlocks[1]!));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await assert.rejects(gated.create(id(milestoneBlocks[2]!)), (e: Error & { code?: string }) => {
      assert.equal(e.code, TangleErrorCode.ProofBusy);
      return true;
    });
    // the first tree, still being built, is shared, not built again
    const again = gated.create(id(milestoneBlocks[0]!));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(builds, 2);
    release();
    for (const [p, hex] of [
      [first, milestoneBlocks[0]!],
      [second, milestoneBlocks[1]!],
      [again, milestoneBlocks[0]!],
    ] as const) {
      assert.deepEqual(inclusionProofToJson(await p), await proofOf(hex));
    }
    // free again: the third is built now
    assert.deepEqual(
      inclusionProofToJson(await gated.create(id(milestoneBlocks[2]!))),
      await proofOf(milestoneBlocks[2]!),
    );
  });

  it("answers valid:false for a flipped hash, a removed signature, another network's milestone, another block", async () => {
    const good = await proofOf(referenced[3]!);
    const flipped = structuredClone(good);
    let node = flipped.proof;
    while (!("h" in node)) node = "h" in node.l ? node.l : node.r;
    node.h = `${node.h.slice(0, 10)}${node.h[10] === "0" ? "1" : "0"}${node.h.slice(11)}`;
    assert.equal(await valid(flipped), false);

    const unsigned = structuredClone(good);
    unsigned.milestone.signatures = [];
    assert.equal(await valid(unsigned), false);

    const foreign = structuredClone(good);
    const other = ed25519KeyPairFromSeed(new Uint8Array(32).fill(7));
    const m = inclusionProofFromJson(good).milestone;
    foreign.milestone.signatures = [
      { type: 0, publicKey: toHex(other.publicKey), signature: toHex(ed25519Sign(other, computeMilestoneId(m))) },
    ];
    assert.equal(await valid(foreign), false);
    const otherProtocol = structuredClone(good);
    otherProtocol.milestone.protocolVersion = 3;
    assert.equal(await valid(otherProtocol), false);

    const otherBlock = structuredClone(good);
    otherBlock.block = (await proofOf(referenced[4]!)).block;
    assert.equal(await valid(otherBlock), false);
    assert.equal(await valid(good), true);
  });

  it("answers 400 for a block no milestone references yet, 404 for an unknown one, 400 for malformed IDs", async () => {
    const fresh = await submit({ protocolVersion: 2, payload: { type: 5, tag: "0xff", data: "0x" } });
    assertError(await create(fresh), 400, /is not referenced by a milestone/);
    assertError(await create(`0x${"42".repeat(32)}`), 404, /is not known to this node \(never seen, or pruned\)/);
    for (const bad of ["0x12", "42".repeat(32), `0x${"zz".repeat(32)}`, `0x${"42".repeat(33)}`]) {
      assertError(await create(bad), 400, /^blockId: expected 0x-prefixed hex of 32 bytes/);
    }
  });

  it("answers 400 with a reason for a body that is not a proof, never 5xx", async () => {
    const good = await proofOf(referenced[0]!);
    const deep = `${'{"l":'.repeat(10_000)}{"h":"0x00"}${',"r":{"h":"0x00"}}'.repeat(10_000)}`;
    const cases: [string, unknown, RegExp][] = [
      ["not JSON", "{milestone", /JSON/i],
      ["an array", [good], /body/],
      ["no proof", { milestone: good.milestone, block: good.block }, /proof/],
      ["an unknown field", { ...good, extra: true }, /extra: unknown field/],
      [
        "nested 10,000 deep",
        `{"milestone":${JSON.stringify(good.milestone)},"block":${JSON.stringify(good.block)},"proof":${deep}}`,
        /nested deeper than 32 levels/,
      ],
      ["a hash of bad hex", { ...good, proof: { l: { h: "0xzz" }, r: good.proof.r ?? { h: "0x" } } }, /proof\.l\.h/],
      ["a value of 31 bytes", { ...good, proof: { value: `0x${"11".repeat(31)}` } }, /proof\.value: expected 32 bytes/],
      ["an unknown node", { ...good, proof: { x: 1 } }, /body\.proof: expected a proof node/],
      ["a malformed block", { ...good, block: { ...good.block, nonce: 5 } }, /body\.block\.nonce/],
      ["a malformed milestone", { ...good, milestone: { ...good.milestone, index: "1" } }, /body\.milestone\.index/],
    ];
    for (const [name, body, reason] of cases) {
      const res = await validate(body);
      assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
      assertError(res, 400, reason);
    }
    const big = JSON.stringify({ ...good, block: { ...good.block, padding: "x".repeat(300 * 1024) } });
    assertError(await validate(big), 400, /too large/);
  });

  it("answers 200 or a 400 to 1,000 mutated proofs, never 5xx", async () => {
    const rng = new Rng(0x9017);
    const good = await proofOf(referenced[5]!);
    const junk = (): unknown =>
      rng.pick([null, 0, -1, 1e300, "", "0x", "0xzz", `0x${"ab".repeat(33)}`, [], {}, true, "\u0000", { h: "0x" }]);
    /** Every (parent, key) of the JSON tree. */
    const slots = (node: ProofJson, out: [ProofJson, string][] = []): [ProofJson, string][] => {
      for (const key of Object.keys(node)) {
        out.push([node, key]);
        if (typeof node[key] === "object" && node[key] !== null) slots(node[key], out);
      }
      return out;
    };
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      const p = structuredClone(good);
      for (let m = rng.int(1, 3); m > 0; m--) {
        const all = slots(p);
        const [parent, key] = all[rng.int(0, all.length - 1)]!;
        const value = parent[key];
        const r = rng.int(0, 3);
        if (r === 0) delete parent[key];
        else if (r === 1) parent[key] = junk();
        else if (r === 2 && typeof value === "string" && value.length > 3) {
          const at = rng.int(2, value.length - 1);
          parent[key] = `${value.slice(0, at)}${value[at] === "a" ? "b" : "a"}${value.slice(at + 1)}`;
        } else parent[`${key}x`] = value;
      }
      const res = await validate(p);
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode === 200) assert.equal(typeof res.json().valid, "boolean");
      else assertError(res, 400);
    }
    assert.deepEqual([...statuses.keys()].sort(), [200, 400], JSON.stringify([...statuses]));
  });

  it("answers 404 once the block and its milestone's white-flag order are pruned", async () => {
    const early = referenced[0]!;
    for (let i = 0; i < 20; i++) await h.node.coordinator.issueMilestone();
    await h.node.pruner.pruneTo(milestoneIndex + 1);
    assertError(await create(early), 404, /pruned/);
    assert.deepEqual(await h.node.db.milestoneBlocks.list(milestoneIndex, { reverse: false, limit: 10 }), []);
    // what remains still gets proofs
    const later = h.node.tangle.latestMilestone;
    await h.node.coordinator.issueMilestone();
    assert.equal(await valid(await proofOf(toHex(later.blockId))), true);
  });
});
