import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DEFAULT_DEV_MNEMONIC } from "../../src/node/devAccounts.js";
import { iota, type Json } from "../helpers/iota.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * The IRC metadata routes (inx-irc-metadata's, TIP-27 and TIP-30) against a dev node process
 * with auto milestones, the metadata written by the official SDK (`@iota/sdk-wasm@1.1.3`) as a
 * wallet writes it: NFTs minted with its `Irc27Metadata` helper and with metadata that is not
 * IRC-27, a native token created with its `Irc30Metadata` helper. Each route answers the JSON
 * when it is valid, 404 with the reason when it is not, 400 for an ID that is not one.
 */

interface SdkTransaction {
  transactionId: string;
  blockId?: string;
  payload: { essence: { outputs: unknown[] } };
}
interface SdkAccount {
  sync(options?: { forceSyncing?: boolean }): Promise<unknown>;
  mintNfts(params: { immutableMetadata?: string; metadata?: string }[]): Promise<SdkTransaction>;
  createAliasOutput(): Promise<SdkTransaction>;
  prepareCreateNativeToken(params: {
    circulatingSupply: bigint;
    maximumSupply: bigint;
    foundryMetadata?: string;
  }): Promise<{ tokenId(): string; send(): Promise<SdkTransaction> }>;
}
interface IrcMetadataHelper {
  asHex(): string;
}
const sdk = createRequire(import.meta.url)("@iota/sdk-wasm/node/lib/index.js") as {
  CoinType: { Shimmer: number };
  utf8ToHex(text: string): string;
  Irc27Metadata: new (
    type: string,
    uri: string,
    name: string,
  ) => IrcMetadataHelper & {
    withCollectionName(name: string): IrcMetadataHelper;
  };
  Irc30Metadata: new (
    name: string,
    symbol: string,
    decimals: number,
  ) => IrcMetadataHelper & { withDescription(text: string): IrcMetadataHelper };
  Wallet: new (options: {
    storagePath: string;
    clientOptions: { nodes: string[] };
    coinType: number;
    secretManager: { mnemonic: string };
  }) => { createAccount(data: { alias: string }): Promise<SdkAccount>; destroy(): Promise<void> };
};

const IRC = "/api/irc-metadata/v1";

describe("IRC-27 and IRC-30 metadata routes against SDK-minted NFTs and tokens", { timeout: 60_000 }, () => {
  let node: NodeProcess;
  let wallet: InstanceType<typeof sdk.Wallet> | undefined;
  let account: SdkAccount;
  /** NFT IDs by what their metadata is. */
  const nfts: Record<"valid" | "notJson" | "notIrc27" | "none", string> = {
    valid: "",
    notJson: "",
    notIrc27: "",
    none: "",
  };
  let tokenId = "";

  const get = async (path: string): Promise<{ status: number; body: Json; type: string }> => {
    const res = await fetch(`${node.url}${path}`);
    return { status: res.status, body: (await res.json()) as Json, type: res.headers.get("content-type") ?? "" };
  };
  const included = async (tx: SdkTransaction, what: string): Promise<void> => {
    assert.ok(tx.blockId, `${what}: a block ID`);
    const meta = await waitFor(
      async () => {
        const m = await node.json(`/api/core/v2/blocks/${tx.blockId}/metadata`);
        return m.ledgerInclusionState === undefined ? undefined : m;
      },
      10_000,
      `${what} decided`,
      10,
    );
    assert.equal(meta.ledgerInclusionState, "included", `${what}: ${JSON.stringify(meta)}`);
  };

  const IRC27 = new sdk.Irc27Metadata(
    "image/png",
    "https://example.com/nft-1.png",
    "ledger-node NFT #1",
  ).withCollectionName("ledger-node test collection");
  const IRC30 = new sdk.Irc30Metadata("ledger-node token", "LNT", 6).withDescription("a test token");

  before(async () => {
    node = await NodeProcess.create("irc-metadata", ["--dev-accounts", "1", "--milestones", "auto"]);
    node.start();
    await node.waitHealthy();
    wallet = new sdk.Wallet({
      storagePath: join(node.dataDir, "sdk-wallet"),
      clientOptions: { nodes: [node.url] },
      coinType: sdk.CoinType.Shimmer,
      secretManager: { mnemonic: DEFAULT_DEV_MNEMONIC },
    });
    account = await wallet.createAccount({ alias: "0" });
    await account.sync();

    // four NFTs in one transaction: IRC-27 metadata, metadata that is not JSON, JSON that is not
    // IRC-27 (its version and uri wrong or missing), and none
    const mint = await account.mintNfts([
      { immutableMetadata: IRC27.asHex() },
      { immutableMetadata: sdk.utf8ToHex("{ this is not JSON") },
      { immutableMetadata: sdk.utf8ToHex(JSON.stringify({ standard: "IRC27", version: "1.0", name: "x", type: "a" })) },
      { metadata: sdk.utf8ToHex("a mutable note only") },
    ]);
    await included(mint, "the NFT mint");
    const outputs = JSON.parse(JSON.stringify(mint.payload.essence.outputs)) as Json[];
    const ids = outputs
      .map((o, i) => ({ o, i }))
      .filter(({ o }) => o.type === 6)
      .map(({ i }) =>
        iota.TransactionHelper.resolveIdFromOutputId(
          iota.TransactionHelper.outputIdFromTransactionData(mint.transactionId, i),
        ),
      );
    assert.equal(ids.length, 4, "four NFT outputs, in the order asked");
    [nfts.valid, nfts.notJson, nfts.notIrc27, nfts.none] = ids as [string, string, string, string];

    // an alias, then a foundry on it whose immutable metadata is IRC-30
    await account.sync({ forceSyncing: true });
    await included(await account.createAliasOutput(), "the alias");
    await account.sync({ forceSyncing: true });
    const prepared = await account.prepareCreateNativeToken({
      circulatingSupply: 1_000_000n,
      maximumSupply: 10_000_000n,
      foundryMetadata: IRC30.asHex(),
    });
    tokenId = prepared.tokenId();
    await included(await prepared.send(), "the foundry");
  });
  after(async () => {
    await wallet?.destroy();
    if (node) assert.equal(await node.close(), 0, `the node did not shut down cleanly: ${node.output}`);
  });

  it("lists irc-metadata/v1 among the node's API plugins", async () => {
    assert.ok((await node.json("/api/routes")).routes.includes("irc-metadata/v1"));
  });

  it("answers an NFT's IRC-27 metadata as the SDK wrote it", async () => {
    const r = await get(`${IRC}/nfts/${nfts.valid}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.type, /^application\/json/);
    assert.deepEqual(r.body, JSON.parse(JSON.stringify(IRC27)));
    assert.equal(r.body.name, "ledger-node NFT #1");
    assert.equal(r.body.collectionName, "ledger-node test collection");
  });

  it("answers a native token's IRC-30 metadata by its token ID", async () => {
    const r = await get(`${IRC}/tokens/${tokenId}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, {
      standard: "IRC30",
      name: "ledger-node token",
      symbol: "LNT",
      decimals: 6,
      description: "a test token",
    });
  });

  it("answers 404 with the reason for metadata that is not JSON, breaks IRC-27, is missing, or whose chain does not exist", async () => {
    const cases: [string, RegExp][] = [
      [`${IRC}/nfts/${nfts.notJson}`, /^the metadata is not JSON/],
      [`${IRC}/nfts/${nfts.notIrc27}`, /^the metadata breaks IRC-27's schema: uri is missing; version must match/],
      [`${IRC}/nfts/${nfts.none}`, /^the NFT has no immutable metadata feature$/],
      [`${IRC}/nfts/0x${"ab".repeat(32)}`, /^no unspent output of NFT 0xabab/],
      [`${IRC}/tokens/0x08${"ab".repeat(36)}00`, /^no unspent output of token 0x08abab/],
    ];
    for (const [path, reason] of cases) {
      const r = await get(path);
      assert.equal(r.status, 404, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.message, "could not find data");
      assert.match(r.body.error.details, reason, path);
    }
  });

  it("answers 400 with the reason for an ID that is not one", async () => {
    const cases: [string, RegExp][] = [
      [`${IRC}/nfts/0x1234`, /^nftId: expected 0x-prefixed hex of 32 bytes/],
      [`${IRC}/nfts/${"ab".repeat(32)}`, /^nftId: /],
      [`${IRC}/nfts/0x${"zz".repeat(32)}`, /^nftId: /],
      [`${IRC}/tokens/${nfts.valid}`, /^tokenId: expected 0x-prefixed hex of 38 bytes/],
      [`${IRC}/tokens/0x00${"ab".repeat(36)}00`, /^tokenId: a native token ID is its foundry's ID/],
      [`${IRC}/tokens/0x08${"ab".repeat(36)}01`, /^tokenId: a native token ID is its foundry's ID/],
    ];
    for (const [path, reason] of cases) {
      const r = await get(path);
      assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error.details, reason, path);
    }
  });
});
