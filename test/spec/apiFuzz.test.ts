import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { STATUS_MESSAGES } from "../../src/api/errors.js";
import { blockToJson, encodeBlock } from "../../src/codec/block.js";
import { compareBytes, toHex } from "../../src/codec/hex.js";
import { transactionToJson } from "../../src/codec/transaction.js";
import type { Block } from "../../src/codec/types.js";
import { closeMinerPool } from "../../src/pow/index.js";
import { BINARY, CORE, genesisPayment, type Harness, openHealthyHarness } from "../helpers/coreHarness.js";
import { Rng } from "../helpers/random.js";
import { BLOCK_KINDS, randomBlock } from "../helpers/randomBlocks.js";

/**
 * 10,000 mutated submissions to `POST /api/core/v2/blocks`: valid blocks as TIP-25 JSON,
 * mutated structurally (fields dropped, duplicated, retyped; huge numbers, deep nesting, unicode,
 * wrong hex, malformed text), and as raw bytes (bit flips, truncation, insertion, deletion). Every
 * answer is 201 or a 400 in the spec's error shape; afterwards the node is healthy and takes a
 * valid block. PoW is off (score 0), so accepted mutants are stored without mining.
 */

/** Fixed so a failure reproduces; `API_FUZZ_SEED` explores others. */
const SEED = Number(process.env.API_FUZZ_SEED ?? 0x5eed_a9f1);
const RUNS = 10_000;
const SEEDS = 48;

// biome-ignore lint/suspicious/noExplicitAny: JSON trees are mutated in place
type Json = any;

const UNICODE = [
  "\u0000",
  "\ud800",
  "\udfff",
  "\u202e0x00",
  "０ｘ１２",
  "😀",
  "e\u0301",
  "\u00a0",
  "0x\u0661\u0662",
  "\uffff",
];
const NUMBERS = [0, -1, -0, 1.5, 2 ** 31, 2 ** 32, 2 ** 53 + 2, 2 ** 64, 1e308, -1e308, 1e-300, 255, 256, 65535];
const RAW_NUMBERS = ["1e400", "-1e400", "123456789012345678901234567890", "0.0000000000000000000001", "1E2", "-0.0"];

/** Every object, array and key path of a JSON tree. */
function nodes(v: Json, out: { parent: Json; key: string | number }[] = [], parent?: Json, key?: string | number) {
  if (parent !== undefined) out.push({ parent, key: key! });
  if (v && typeof v === "object") for (const k of Array.isArray(v) ? v.keys() : Object.keys(v)) nodes(v[k], out, v, k);
  return out;
}

function randomValue(rng: Rng): Json {
  switch (rng.int(0, 7)) {
    case 0:
      return rng.pick(NUMBERS);
    case 1:
      return rng.pick(UNICODE);
    case 2:
      return rng.bool();
    case 3:
      return null;
    case 4:
      return [];
    case 5:
      return {};
    case 6:
      return toHex(rng.bytes(rng.int(0, 40)));
    default:
      return String(rng.int(0, 1_000_000));
  }
}

/** A hex string made wrong in one of the ways clients get it wrong. */
function wrongHex(rng: Rng, s: string): string {
  switch (rng.int(0, 6)) {
    case 0:
      return `${s}0`; // odd length
    case 1:
      return s.slice(2); // no prefix
    case 2:
      return `0X${s.slice(2)}`;
    case 3:
      return `${s.slice(0, -1)}g`;
    case 4:
      return `${s}00`; // one byte more
    case 5:
      return s.slice(0, -2); // one byte less
    default:
      return "0x";
  }
}

/** One structural mutation of a JSON block; returns the body text. */
function mutateJson(rng: Rng, seed: Json): string {
  const doc = structuredClone(seed);
  const all = nodes(doc);
  const target = all.length > 0 ? rng.pick(all) : undefined;
  const set = (v: Json) => {
    if (target) target.parent[target.key] = v;
  };
  let text: string | undefined;
  switch (rng.int(0, 11)) {
    case 0: // drop a field or element
      if (target && Array.isArray(target.parent)) target.parent.splice(Number(target.key), 1);
      else if (target) delete target.parent[target.key];
      break;
    case 1: // retype
      set(randomValue(rng));
      break;
    case 2: // huge or odd numbers, some only expressible as text
      if (rng.bool(0.5)) set(rng.pick(NUMBERS));
      else {
        set("__RAW__");
        text = JSON.stringify(doc).replace('"__RAW__"', rng.pick(RAW_NUMBERS));
      }
      break;
    case 3: {
      // deep nesting
      const depth = rng.pick([10, 100, 1000, 20_000]);
      const [open, close] = rng.bool() ? ["[", "]"] : ['{"a":', "}"];
      set("__RAW__");
      text = JSON.stringify(doc).replace('"__RAW__"', `${open.repeat(depth)}1${close.repeat(depth)}`);
      break;
    }
    case 4: // unicode
      set(rng.bool() ? rng.pick(UNICODE) : `${String(target?.parent[target.key])}${rng.pick(UNICODE)}`);
      break;
    case 5: {
      // wrong hex in a hex field
      const hex = all.filter((n) => typeof n.parent[n.key] === "string" && n.parent[n.key].startsWith("0x"));
      if (hex.length > 0) {
        const n = rng.pick(hex);
        n.parent[n.key] = wrongHex(rng, n.parent[n.key]);
      }
      break;
    }
    case 6: {
      // a duplicated key with another value (JSON.parse keeps the last)
      const objects = [doc, ...all.map((n) => n.parent[n.key])].filter(
        (o) => o && typeof o === "object" && !Array.isArray(o) && Object.keys(o).length > 0,
      );
      const o = rng.pick(objects);
      const key = rng.pick(Object.keys(o));
      o.__DUP__ = randomValue(rng);
      text = JSON.stringify(doc).replace('"__DUP__"', JSON.stringify(key));
      break;
    }
    case 7: // an unknown field
      (target && typeof target.parent === "object" && !Array.isArray(target.parent) ? target.parent : doc)[
        rng.pick(["extra", "Type", "nonce ", "__proto__x", "constructor"])
      ] = randomValue(rng);
      break;
    case 8: // type discriminators and versions set to other integers
      set(rng.pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 255, 256, -1]));
      break;
    case 9: // arrays emptied, doubled or blown up
      if (target && Array.isArray(target.parent[target.key])) {
        const a = target.parent[target.key];
        set(rng.pick([[], [...a, ...a], Array(rng.int(9, 2000)).fill(a[0] ?? 0)]));
      } else set(Array(rng.int(0, 300)).fill(randomValue(rng)));
      break;
    case 10: {
      // malformed text: truncated, a character flipped, or bytes inserted
      const t = JSON.stringify(doc);
      const at = rng.int(0, t.length);
      text = rng.pick([
        t.slice(0, at),
        `${t.slice(0, at)}${String.fromCharCode(rng.int(0, 0x7f))}${t.slice(at + 1)}`,
        `${t.slice(0, at)}${Buffer.from(rng.bytes(rng.int(1, 8))).toString("latin1")}${t.slice(at)}`,
      ]);
      break;
    }
    default: {
      // two fields' values swapped
      if (all.length > 1) {
        const a = rng.pick(all);
        const b = rng.pick(all);
        [a.parent[a.key], b.parent[b.key]] = [b.parent[b.key], a.parent[a.key]];
      }
    }
  }
  return text ?? JSON.stringify(doc) ?? "";
}

/** The deepest nesting of brackets in a JSON text (strings not told apart: an upper bound). */
function maxDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** One byte-level mutation of a raw block. */
function mutateBytes(rng: Rng, src: Uint8Array): Uint8Array {
  const at = () => rng.int(0, Math.max(0, src.length - 1));
  const out = src.slice();
  switch (rng.int(0, 6)) {
    case 0:
      for (let n = rng.int(1, 8); n > 0; n--) out[at()]! ^= 1 << rng.int(0, 7);
      return out;
    case 1:
      out[at()] = rng.pick([0, 1, 0x7f, 0x80, 0xff, rng.int(0, 255)]);
      return out;
    case 2:
      return src.subarray(0, rng.int(0, src.length - 1));
    case 3: {
      const i = rng.int(0, src.length);
      return Uint8Array.from([...src.subarray(0, i), ...rng.bytes(rng.int(1, 64)), ...src.subarray(i)]);
    }
    case 4: {
      const i = at();
      return Uint8Array.from([...src.subarray(0, i), ...src.subarray(Math.min(src.length, i + rng.int(1, 64)))]);
    }
    case 5: {
      // a length or count field (the payload length at 2 + 32 * parents) set to a random u32
      const p = 2 + 32 * (src[1] ?? 0);
      if (p + 4 <= out.length) new DataView(out.buffer).setUint32(p, rng.u32(), true);
      return out;
    }
    default:
      return rng.bytes(rng.int(0, 300));
  }
}

describe("POST /api/core/v2/blocks under 10,000 mutated bodies", () => {
  let h: Harness;
  const rng = new Rng(SEED);
  const jsonSeeds: Json[] = [];
  const byteSeeds: Uint8Array[] = [];

  before(async () => {
    h = await openHealthyHarness({ minPowScore: 0, powWorkers: 1 });
    const tips = h.node.tangle.selectParents().sort(compareBytes);
    const pay = genesisPayment(new Uint8Array(32).fill(8), 1_000_000n);
    jsonSeeds.push({ protocolVersion: 2, payload: transactionToJson(pay) });
    for (let i = 0; i < SEEDS; i++) {
      const random = randomBlock(rng, BLOCK_KINDS[i % BLOCK_KINDS.length]);
      const block: Block = { ...random, parents: i % 3 === 0 ? [] : tips };
      byteSeeds.push(encodeBlock(block));
      const json = blockToJson(block);
      if (i % 2 === 0) delete json.nonce;
      jsonSeeds.push(json);
    }
  });
  after(async () => {
    await h.close();
    await closeMinerPool();
  });

  it("answers every body with 201 or a 400 in the error shape, and keeps serving", async () => {
    const statuses = new Map<number, number>();
    const fail = (res: LightMyRequestResponse, what: string) =>
      assert.fail(`${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    for (let run = 0; run < RUNS; run++) {
      let payload: string | Buffer;
      let type: string;
      if (rng.bool(0.6)) {
        payload = mutateJson(rng, rng.pick(jsonSeeds));
        // now and then a second and third mutation on top, while the text is still shallow JSON
        for (let more = rng.int(0, 2); more > 0 && maxDepth(payload) <= 64; more--) {
          try {
            payload = mutateJson(rng, JSON.parse(payload));
          } catch {
            break;
          }
        }
        type = rng.bool(0.97)
          ? "application/json"
          : rng.pick([BINARY, "text/plain", "application/json; charset=utf-8"]);
      } else {
        const bytes = mutateBytes(rng, rng.pick(byteSeeds));
        payload = rng.bool(0.1) ? `${toHex(bytes)}${rng.pick(["", "\n", " ", "zz"])}` : Buffer.from(bytes);
        type = rng.bool(0.95) ? rng.pick([BINARY, "application/vnd.node.serializer-v1"]) : "application/json";
      }
      const res = await h.app.inject({
        method: "POST",
        url: `${CORE}/blocks`,
        payload,
        headers: { "content-type": type },
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      const what = `run ${run} (seed ${SEED})`;
      if (res.statusCode === 201) continue;
      if (res.statusCode !== 400) fail(res, what);
      const body = res.json();
      if (
        body.error?.code !== 400 ||
        body.error.message !== STATUS_MESSAGES[400] ||
        typeof body.error.details !== "string" ||
        /\n\s+at /.test(body.error.details) ||
        Object.keys(body).length !== 1
      ) {
        fail(res, `${what}: error shape`);
      }
    }
    assert.equal(
      [...statuses.values()].reduce((a, b) => a + b, 0),
      RUNS,
    );
    assert.ok((statuses.get(201) ?? 0) > 100, `some mutants are valid blocks: ${JSON.stringify([...statuses])}`);
    assert.ok((statuses.get(400) ?? 0) > 5000, `most are refused: ${JSON.stringify([...statuses])}`);

    // the node still serves: healthy (its coordinator is driven by hand here, and health wants
    // a milestone within the last few intervals), and a valid block goes through
    await h.node.coordinator.issueMilestone();
    assert.equal((await h.app.inject("/health")).statusCode, 200);
    assert.equal((await h.app.inject(`${CORE}/info`)).statusCode, 200);
    const ok = await h.app.inject({
      method: "POST",
      url: `${CORE}/blocks`,
      payload: { protocolVersion: 2, payload: { type: 5, tag: "0x66757a7a", data: "0x" } },
    });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal((await h.app.inject(`${CORE}/blocks/${ok.json().blockId}/metadata`)).statusCode, 200);
  });
});
