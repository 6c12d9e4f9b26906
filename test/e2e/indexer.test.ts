import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { buildServer } from "../../src/api/server.js";
import { fromHex, toHex } from "../../src/codec/hex.js";
import { DEV_KEY, DEV_TOKEN_SUPPLY, GENESIS_OUTPUT_ID } from "../../src/node/devNetwork.js";
import { GENESIS, TestLedger } from "../helpers/ledgerFixture.js";
import { alias, basic, implicitAliasId } from "../helpers/txBuilder.js";
import { devWallet } from "../helpers/wallet.js";

/**
 * The indexer as a real Stardust client sees it: `@iota/iota.js@2.0.0-rc.4`'s
 * `IndexerPluginClient` over HTTP against a listening server, finding the dev key's outputs and
 * following an alias that signed transactions create and then state-transition.
 */

// The package's "exports" map names no typings, so NodeNext resolution finds none; the few
// functions used here are typed by hand and loaded through its CommonJS build.
interface OutputsResponse {
  ledgerIndex: number;
  pageSize: number;
  cursor?: string;
  items: string[];
}
interface IndexerPluginClient {
  basicOutputs(filter: Record<string, unknown>): Promise<OutputsResponse>;
  aliases(filter: Record<string, unknown>): Promise<OutputsResponse>;
  alias(aliasId: string): Promise<OutputsResponse>;
}
interface IotaClient {
  IndexerPluginClient: new (endpoint: string) => IndexerPluginClient;
  Bech32Helper: { toBech32(addressType: number, addressBytes: Uint8Array, hrp: string): string };
  ED25519_ADDRESS_TYPE: number;
  addressBalance(endpoint: string, addressBech32: string): Promise<{ balance: { toString(): string } }>;
}

const require = createRequire(import.meta.url);
const iota = require("@iota/iota.js") as IotaClient;

describe("indexer through iota.js's IndexerPluginClient", () => {
  let ledger: TestLedger;
  let app: FastifyInstance;
  let client: IndexerPluginClient;
  let endpoint: string;
  const dev = devWallet();
  const devBech32 = iota.Bech32Helper.toBech32(
    iota.ED25519_ADDRESS_TYPE,
    fromHex(DEV_KEY.pubKeyHash, "pubKeyHash", 32),
    "tst",
  );

  before(async () => {
    ledger = await TestLedger.open("e2e-indexer");
    app = buildServer(ledger.node, "silent");
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as { port: number };
    endpoint = `http://127.0.0.1:${port}`;
    client = new iota.IndexerPluginClient(endpoint);
  });
  after(async () => {
    await app.close();
    await ledger.close();
  });

  it("finds the genesis output of the dev key", async () => {
    const r = await client.basicOutputs({ addressBech32: devBech32 });
    assert.deepEqual(r.items, [toHex(GENESIS_OUTPUT_ID)]);
    assert.equal(r.ledgerIndex, 0);
    assert.equal(r.cursor, undefined);
  });

  it("finds an alias created and then state-transitioned by signed transactions", async () => {
    // 1. dev creates an alias it controls, keeps 1 Mi and the rest
    const create = await ledger.send(
      [GENESIS],
      [
        basic(dev.address),
        alias({ stateController: dev.address, governor: dev.address }),
        basic(dev.address, { amount: DEV_TOKEN_SUPPLY - 2_000_000n }),
      ],
      [dev],
    );
    const ms1 = await ledger.milestone();
    await ledger.assertIncluded(create);
    const aliasId = toHex(implicitAliasId(create.outputs[1]!));

    const created = await client.alias(aliasId);
    assert.deepEqual(created.items, [toHex(create.outputs[1]!.outputId)]);
    assert.equal(created.ledgerIndex, ms1.index);
    const controlled = await client.aliases({ stateControllerBech32: devBech32, governorBech32: devBech32 });
    assert.deepEqual(controlled.items, [toHex(create.outputs[1]!.outputId)]);

    // 2. dev moves the alias to state index 1
    const transition = await ledger.send(
      [create.outputs[1]!],
      [
        alias({
          aliasId: fromHex(aliasId, "aliasId", 32),
          stateIndex: 1,
          stateMetadata: Uint8Array.of(1),
          stateController: dev.address,
          governor: dev.address,
        }),
      ],
      [dev],
    );
    const ms2 = await ledger.milestone();
    await ledger.assertIncluded(transition);
    const moved = await client.alias(aliasId);
    assert.deepEqual(moved.items, [toHex(transition.outputs[0]!.outputId)]);
    assert.equal(moved.ledgerIndex, ms2.index);
    assert.deepEqual((await client.aliases({ stateControllerBech32: devBech32 })).items, moved.items);

    // 3. the dev key's basic outputs, page by page as sendAdvanced and getBalance read them
    const expected = [toHex(create.outputs[0]!.outputId), toHex(create.outputs[2]!.outputId)].sort();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.basicOutputs({
        addressBech32: devBech32,
        hasStorageDepositReturn: false,
        hasExpiration: false,
        hasTimelock: false,
        pageSize: 1,
        ...(cursor ? { cursor } : {}),
      });
      assert.ok(page.items.length <= 1);
      seen.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    assert.deepEqual(seen, expected, "both booked at the same milestone: output ID order");

    // 4. iota.js's own balance helper: owned outputs, then those returning to the key on expiry
    const { balance } = await iota.addressBalance(endpoint, devBech32);
    assert.equal(balance.toString(), String(DEV_TOKEN_SUPPLY - 1_000_000n), "everything but the alias's deposit");
  });

  it("surfaces 404 and 400 as client errors with the spec's status", async () => {
    await assert.rejects(client.alias(`0x${"ab".repeat(32)}`), (e: { httpStatus?: number; message?: string }) => {
      assert.equal(e.httpStatus, 404);
      assert.equal(e.message, "could not find data");
      return true;
    });
    await assert.rejects(client.basicOutputs({ addressBech32: "tst1invalid" }), (e: { httpStatus?: number }) => {
      assert.equal(e.httpStatus, 400);
      return true;
    });
  });
});
