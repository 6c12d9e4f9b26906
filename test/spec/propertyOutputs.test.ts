import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { bytesEqual, toHex } from "../../src/codec/hex.js";
import {
  decodeOutput,
  encodeOutput,
  type OutputJson,
  outputFromJson,
  outputToJson,
} from "../../src/codec/outputs/output.js";
import { validateOutput } from "../../src/codec/outputs/validateOutput.js";
import { minStorageDeposit } from "../../src/codec/storageDeposit.js";
import { type Output, OutputType, type RentStructure } from "../../src/codec/types.js";
import { Rng } from "../helpers/random.js";
import {
  DEV_OUTPUT_PARAMS,
  type RandomOutputOptions,
  randomAliasOutput,
  randomBasicOutput,
  randomFoundryOutput,
  randomNftOutput,
  randomTreasuryOutput,
} from "../helpers/randomOutputs.js";

/**
 * Random valid outputs of every kind compared both ways with @iota/iota.js@2.0.0-rc.4, whose
 * in-memory objects are the TIP-25 JSON shapes: same bytes from our JSON, same JSON from our
 * bytes, same storage deposit, and iota.js's own output validation accepts what we call valid.
 */

// The package's "exports" map names no typings, so NodeNext resolution finds none; the few
// functions used here are typed by hand and loaded through its CommonJS build.
interface IotaWriteStream {
  finalBytes(): Uint8Array;
}
interface IotaOracle {
  serializeOutput(w: IotaWriteStream, output: unknown): void;
  deserializeOutput(r: unknown): unknown;
  validateOutput(output: unknown, protocol: unknown): void;
  TransactionHelper: { getStorageDeposit(output: unknown, rent: RentStructure): number };
}
interface IotaUtil {
  WriteStream: new () => IotaWriteStream;
  ReadStream: new (bytes: Uint8Array) => unknown;
}
const require = createRequire(import.meta.url);
const iota = require("@iota/iota.js") as IotaOracle;
const util = require("@iota/util.js") as IotaUtil;

const CASES = 1000;
const params = DEV_OUTPUT_PARAMS;
const protocolInfo = {
  version: 2,
  networkName: "dev",
  bech32Hrp: "tst",
  minPowScore: 100,
  belowMaxDepth: 15,
  rentStructure: params.rentStructure,
  tokenSupply: params.tokenSupply.toString(),
};

/** iota.js returns absent lists as `undefined` properties; on the wire they are left out. */
const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

function iotaSerialize(json: OutputJson): Uint8Array {
  const w = new util.WriteStream();
  iota.serializeOutput(w, json);
  return w.finalBytes();
}

function checkOne(output: Output): void {
  // 1. Ours is valid and round-trips through our own codec.
  validateOutput(output, params, "output");
  const bytes = encodeOutput(output);
  const json = outputToJson(output);
  assert.deepEqual(decodeOutput(bytes), output);
  assert.deepEqual(outputFromJson(plain(json), "output"), output);

  // 2. iota.js serializes our JSON to our bytes, and our decoder takes its bytes back.
  const theirBytes = iotaSerialize(json);
  assert.ok(bytesEqual(theirBytes, bytes), `iota.js bytes ${toHex(theirBytes)} != ours ${toHex(bytes)}`);
  const again = decodeOutput(theirBytes);
  assert.ok(bytesEqual(encodeOutput(again), theirBytes));

  // 3. iota.js deserializes our bytes to our JSON.
  assert.deepEqual(plain(iota.deserializeOutput(new util.ReadStream(bytes))), plain(json));

  // 4. Storage deposit (TIP-19) agrees.
  const theirs = iota.TransactionHelper.getStorageDeposit(json, params.rentStructure);
  assert.equal(minStorageDeposit(output, params.rentStructure), BigInt(theirs));

  // 5. iota.js's syntactic output validation accepts it (it rejects treasury outputs outright).
  if (output.type !== OutputType.Treasury) iota.validateOutput(json, protocolInfo);
}

type Generator = (rng: Rng, options?: RandomOutputOptions) => Output;
const kinds: [string, Generator, number][] = [
  ["basic", randomBasicOutput, 0x1000_0000],
  ["alias", randomAliasOutput, 0x2000_0000],
  ["foundry", randomFoundryOutput, 0x3000_0000],
  ["NFT", randomNftOutput, 0x4000_0000],
  ["treasury", randomTreasuryOutput, 0x5000_0000],
];

describe("outputs against @iota/iota.js@2.0.0-rc.4", () => {
  for (const [name, generate, baseSeed] of kinds) {
    it(`${CASES} random ${name} outputs agree both ways`, () => {
      for (let i = 0; i < CASES; i++) {
        const seed = baseSeed + i;
        const output = generate(new Rng(seed));
        try {
          checkOne(output);
        } catch (e) {
          throw new Error(`${name} output from seed ${seed}: ${(e as Error).message}`, { cause: e });
        }
      }
    });
  }
});
