/**
 * `npm run bench -- poi [--blocks N] [--seconds S]`: proofs of inclusion (inx-poi's routes, without
 * HTTP) for the blocks of one milestone's cone of N tagged-data blocks (default 10,000), on a real
 * node and LevelDB:
 * 1. N blocks are taken in through the internal submit path and one milestone references them
 *    all (its confirmation is timed: white-flag, roots, the batch on disk);
 * 2. baseline in the same run: the pure white-flag of that cone (`ledger/whiteFlag.ts`, which
 *    hashes its inclusion Merkle root), the median of 5 runs;
 * 3. the first proof (cold: the milestone's tree read and hashed once), then proofs created for
 *    random blocks of the cone for S seconds (default 2): `InclusionProofs.create` and the JSON
 *    text the route sends;
 * 4. the proofs validated for S seconds: the JSON text parsed and checked as the route does
 *    (`InclusionProofValidator`: codec, block ID, path, root, the coordinator's signatures, a
 *    milestone's verified once), and with every signature verified anew (`validateInclusionProof`).
 * The last line is the figures as JSON (`{"bench":"poi",...}`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeBlock, encodeBlock } from "../src/codec/block.js";
import { inclusionProofToJson } from "../src/codec/inclusionProof.js";
import type { ConeBlock } from "../src/ledger/pastCone.js";
import { whiteFlag } from "../src/ledger/whiteFlag.js";
import { LedgerNode, semanticValidator } from "../src/node/node.js";
import { InclusionProofs, InclusionProofValidator, validateInclusionProof } from "../src/tangle/inclusionProof.js";
import { argN } from "./_args.js";
import { benchNodeOptions } from "./_benchNode.js";
import { printFigures, printTable } from "./_table.js";

const BLOCKS = argN("--blocks", 10_000);
const SECONDS = argN("--seconds", 2);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = await mkdtemp(join(tmpdir(), "ledger-node-bench-poi-"));
const node = await LedgerNode.open(benchNodeOptions(dir));
try {
  // 1. the cone, and its milestone's confirmation
  await node.coordinator.issueMilestone();
  for (let i = 0; i < BLOCKS; i++) {
    const tag = Uint8Array.of(i & 255, (i >> 8) & 255, i >> 16);
    const payload = { type: 5 as const, tag, data: new Uint8Array(32) };
    await node.submitBlock(
      encodeBlock({ protocolVersion: 2, parents: node.tangle.selectParents(), payload, nonce: 0n }),
    );
  }
  // the milestone may need checkpoints first (more than 8 tips): every block ends in one milestone
  let t0 = performance.now();
  const ms = await node.coordinator.issueMilestone();
  const confirmMs = performance.now() - t0;
  const entries = await node.db.milestoneBlocks.list(ms.index, { reverse: false, limit: BLOCKS * 2 });
  const ids = entries.map((e) => e.blockId);

  // 2. baseline: white-flag of the same cone (tagged data: the walk's bookkeeping and the roots)
  const cone: ConeBlock[] = [];
  for (const id of ids) cone.push({ blockId: id, block: decodeBlock((await node.tangle.getBlockBytes(id))!) });
  const wfRuns: number[] = [];
  for (let r = 0; r < 5; r++) {
    t0 = performance.now();
    const result = whiteFlag({
      milestoneIndex: ms.index,
      milestoneTimestamp: ms.timestamp,
      protocolParameters: node.tangle.protocolParameters,
      cone,
      transactions: new Map(),
      inputs: new Map(),
      validate: semanticValidator,
    });
    wfRuns.push(performance.now() - t0);
    if (result.referenced.length !== ids.length) throw new RangeError("white-flag saw another cone");
  }
  const whiteFlagMs = median(wfRuns);

  // 3. creation: the first (cold) proof, then random blocks of the cone
  const proofs = new InclusionProofs(() => node.tangle);
  const pick = () => ids[Math.floor(Math.random() * ids.length)]!;
  t0 = performance.now();
  await proofs.create(pick());
  const coldMs = performance.now() - t0;
  const texts: string[] = [];
  let created = 0;
  t0 = performance.now();
  let now = t0;
  while (now - t0 < SECONDS * 1000) {
    for (let i = 0; i < 100; i++) {
      const text = JSON.stringify(inclusionProofToJson(await proofs.create(pick())));
      if (texts.length < 2000) texts.push(text);
    }
    created += 100;
    now = performance.now();
  }
  const createPerSec = (created * 1000) / (now - t0);

  // 4. validation of those proofs, as the route does it (body parsed, then checked): with its
  //    memory of verified milestones, and with every signature verified anew
  const network = { keys: node.milestoneKeys, protocolVersion: node.tangle.protocolParameters.protocolVersion };
  const validator = new InclusionProofValidator(() => network);
  const validateRate = (check: (json: unknown) => boolean): number => {
    let validated = 0;
    const start = performance.now();
    let at = start;
    while (at - start < SECONDS * 1000) {
      for (let i = 0; i < 100; i++) {
        if (!check(JSON.parse(texts[(validated + i) % texts.length]!))) {
          throw new RangeError("a proof made here did not validate");
        }
      }
      validated += 100;
      at = performance.now();
    }
    return (validated * 1000) / (at - start);
  };
  const validatePerSec = validateRate((json) => validator.validate(json).valid);
  const validateUncachedPerSec = validateRate((json) => validateInclusionProof(json, network).valid);

  printTable(`Proofs of inclusion, milestone ${ms.index} referencing ${ids.length} blocks`, [
    { name: "milestone confirmation of the cone", value: confirmMs, unit: "ms", baseline: "" },
    { name: "white-flag of the cone (pure, median of 5)", value: whiteFlagMs, unit: "ms", baseline: "baseline" },
    {
      name: "first proof (tree read and hashed)",
      value: coldMs,
      unit: "ms",
      baseline: `${(coldMs / whiteFlagMs).toFixed(2)}x white-flag`,
    },
    {
      name: "proofs created (random blocks, JSON text)",
      value: createPerSec,
      unit: "/s",
      target: ">= 2,000/s",
      baseline: `${((createPerSec * whiteFlagMs) / 1000).toFixed(0)} per white-flag`,
    },
    {
      name: "proofs validated (as the route: parsed, checked)",
      value: validatePerSec,
      unit: "/s",
      target: ">= 5,000/s",
      baseline: `${((validatePerSec * whiteFlagMs) / 1000).toFixed(0)} per white-flag`,
    },
    {
      name: "proofs validated, every signature verified anew",
      value: validateUncachedPerSec,
      unit: "/s",
      baseline: `${((validateUncachedPerSec * whiteFlagMs) / 1000).toFixed(0)} per white-flag`,
    },
  ]);
  printFigures("poi", {
    coneBlocks: ids.length,
    createPerSec: Math.round(createPerSec),
    validatePerSec: Math.round(validatePerSec),
    validateUncachedPerSec: Math.round(validateUncachedPerSec),
    firstProofMs: Number(coldMs.toFixed(2)),
    whiteFlagMs: Number(whiteFlagMs.toFixed(2)),
    confirmMs: Number(confirmMs.toFixed(2)),
  });
} finally {
  await node.close();
  await rm(dir, { recursive: true, force: true });
}
