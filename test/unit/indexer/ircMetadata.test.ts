import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bytesEqual } from "../../../src/codec/hex.js";
import { encodeOutput } from "../../../src/codec/outputs/output.js";
import { FeatureType, type Output, OutputType } from "../../../src/codec/types.js";
import {
  checkIrcMetadata,
  IRC27_SCHEMA,
  type IrcCheck,
  type IrcMetadataDeps,
  IrcStandard,
  MAX_IRC_METADATA_DEPTH,
  readIrcMetadata,
} from "../../../src/indexer/index.js";
import type { OutputRecord } from "../../../src/storage/index.js";
import { alice, foundry, nft } from "../../helpers/txBuilder.js";

const bytes = (s: string) => new TextEncoder().encode(s);
const check = (standard: IrcStandard, value: unknown) => checkIrcMetadata(standard, bytes(JSON.stringify(value)));

function refused(result: IrcCheck): string {
  assert.equal(result.ok, false, "the metadata was taken");
  return (result as { reason: string }).reason;
}

// TIP-27's examples (tips/TIP-0027/tip-0027.md)
const TIP27_MINIMAL = {
  standard: "IRC27",
  version: "v1.0",
  type: "image/jpeg",
  uri: "https://mywebsite.com/my-nft-files-1.jpeg",
  name: "My NFT #0001",
};
const TIP27_FULL = {
  ...TIP27_MINIMAL,
  collectionName: "My Collection of Art",
  royalties: { "iota1...a": 0.025, "iota1...b": 0.025 },
  issuerName: "My Artist Name",
  description: "A little information about my NFT collection",
  attributes: [
    { trait_type: "Background", value: "Purple" },
    { trait_type: "Attack", value: "150" },
  ],
};
const TIP27_COLLECTION_ITEM = {
  standard: "IRC27",
  version: "v1.0",
  type: "image/gif",
  uri: "https://my-awesome-nft-project.com/item-4.gif",
  name: "#4 My Awesome NFT",
  issuerName: "Me",
  royalties: { "smr1q5948....": 0.05 },
  collectionName: "My Awesome NFT Collection",
  attributes: [{ trait_type: "awesomeness", value: 60 }],
};

// TIP-30's examples (tips/TIP-0030/examples/)
const TIP30_VALID_1 = { standard: "IRC30", name: "FooCoin", symbol: "FOO", decimals: 3 };
const TIP30_VALID_2 = {
  standard: "IRC30",
  name: "FooCoin",
  description:
    "FooCoin is the utility and governance token of FooLand, a revolutionary protocol in the play-to-earn crypto gaming field.",
  symbol: "FOO",
  decimals: 3,
  url: "https://foocoin.io",
  logoUrl: "https://ipfs.io/ipfs/QmR36VFfo1hH2RAwVs4zVJ5btkopGip5cW7ydY4jUQBrkR",
};
const TIP30_INVALID_3 = {
  standard: "IRC27",
  name: "FooCoin",
  description: "FooCoin is the utility and governance token of FooLand.",
  decimals: 0.5,
};

describe("IRC-27 NFT metadata (TIP-27)", () => {
  it("takes the TIP's examples", () => {
    for (const example of [TIP27_MINIMAL, TIP27_FULL, TIP27_COLLECTION_ITEM]) {
      const result = check(IrcStandard.Irc27, example);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.metadata, example);
    }
  });

  it("refuses metadata that is not JSON, or not UTF-8", () => {
    assert.match(refused(checkIrcMetadata(IrcStandard.Irc27, bytes("{name: 'x'}"))), /not JSON/);
    assert.match(refused(checkIrcMetadata(IrcStandard.Irc27, bytes("hello"))), /not JSON/);
    assert.match(refused(checkIrcMetadata(IrcStandard.Irc27, new Uint8Array([0x7b, 0xff, 0x7d]))), /not UTF-8/);
  });

  it("refuses JSON that is not an object", () => {
    assert.match(refused(check(IrcStandard.Irc27, [TIP27_MINIMAL])), /the document must be object/);
    assert.match(refused(check(IrcStandard.Irc27, "IRC27")), /the document must be object/);
  });

  it("names each required field that is missing", () => {
    const { uri: _uri, name: _name, ...rest } = TIP27_MINIMAL;
    const reason = refused(check(IrcStandard.Irc27, rest));
    assert.match(reason, /IRC-27's schema/);
    assert.match(reason, /uri is missing/);
    assert.match(reason, /name is missing/);
  });

  it("refuses another standard, a bad version and wrong types", () => {
    assert.match(refused(check(IrcStandard.Irc27, { ...TIP27_MINIMAL, standard: "IRC30" })), /standard must match/);
    assert.match(refused(check(IrcStandard.Irc27, { ...TIP27_MINIMAL, version: "1.0" })), /version must match/);
    assert.match(refused(check(IrcStandard.Irc27, { ...TIP27_MINIMAL, name: 7 })), /name must be string/);
    assert.match(refused(check(IrcStandard.Irc27, { ...TIP27_MINIMAL, royalties: [] })), /royalties must be object/);
    assert.match(refused(check(IrcStandard.Irc27, { ...TIP27_MINIMAL, attributes: {} })), /attributes must be array/);
  });

  it("checks the version pattern in linear time: 8 KB of digits that do not match take milliseconds", () => {
    // the TIP's ^v\d+.\d+$ run as it is backtracks quadratically here (~70 ms a document)
    const doc = bytes(JSON.stringify({ ...TIP27_MINIMAL, version: `v${"1".repeat(8000)}x` }));
    const started = performance.now();
    for (let i = 0; i < 10; i++) assert.match(refused(checkIrcMetadata(IrcStandard.Irc27, doc)), /version must match/);
    const ms = performance.now() - started;
    assert.ok(ms < 150, `10 checks took ${ms.toFixed(0)} ms`);
  });

  it("takes exactly the versions the TIP's pattern takes", () => {
    const tip = new RegExp(IRC27_SCHEMA.properties.version.pattern, "u");
    const alphabet = ["v", "1", "0", ".", "x", "\n", "\u2028", "\u{1F600}", " "];
    let seed = 7;
    const pick = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return alphabet[seed % alphabet.length]!;
    };
    for (let i = 0; i < 3000; i++) {
      const version = `v${Array.from({ length: i % 7 }, pick).join("")}`;
      const taken = check(IrcStandard.Irc27, { ...TIP27_MINIMAL, version }).ok;
      assert.equal(taken, tip.test(version), JSON.stringify(version));
    }
  });

  it("refuses IRC-30 metadata, and keeps a reason short when much is wrong", () => {
    assert.match(refused(check(IrcStandard.Irc27, TIP30_VALID_1)), /standard must match/);
    const reason = refused(check(IrcStandard.Irc27, { ...TIP30_VALID_1, name: 1 }));
    assert.match(reason, /; 1 more$/);
  });

  it("refuses nesting deeper than the bound, without parsing it", () => {
    const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    const ok = `{"standard":"IRC27","version":"v1.0","type":"a","uri":"b","name":"c","attributes":${deep(MAX_IRC_METADATA_DEPTH - 1)}}`;
    assert.ok(checkIrcMetadata(IrcStandard.Irc27, bytes(ok)).ok);
    const tooDeep = ok.replace(deep(MAX_IRC_METADATA_DEPTH - 1), deep(MAX_IRC_METADATA_DEPTH));
    assert.match(refused(checkIrcMetadata(IrcStandard.Irc27, bytes(tooDeep))), /nests deeper than 64/);
    // brackets inside strings are text, escaped quotes included
    const inString = { ...TIP27_MINIMAL, name: `\\"${"[".repeat(200)}` };
    assert.ok(check(IrcStandard.Irc27, inString).ok);
  });

  it("takes markup as plain text: the metadata is data, never HTML", () => {
    const name = "<img src=x onerror=alert(1)><script>window.__pwned=1</script>";
    const result = check(IrcStandard.Irc27, { ...TIP27_MINIMAL, name });
    assert.ok(result.ok);
    assert.equal(result.metadata.name, name);
  });
});

describe("IRC-30 native token metadata (TIP-30)", () => {
  it("takes the TIP's valid examples", () => {
    for (const example of [TIP30_VALID_1, TIP30_VALID_2]) {
      const result = check(IrcStandard.Irc30, example);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.metadata, example);
    }
  });

  it("refuses the TIP's invalid example for each of its three faults", () => {
    const reason = refused(check(IrcStandard.Irc30, TIP30_INVALID_3));
    assert.match(reason, /standard must match \^IRC30\$/);
    assert.match(reason, /symbol is missing/);
    assert.match(reason, /decimals must be integer/);
  });

  it("refuses negative decimals, a wrong type and not-JSON", () => {
    assert.match(refused(check(IrcStandard.Irc30, { ...TIP30_VALID_1, decimals: -1 })), /decimals must be >= 0/);
    assert.match(refused(check(IrcStandard.Irc30, { ...TIP30_VALID_1, decimals: "3" })), /decimals must be integer/);
    assert.match(refused(check(IrcStandard.Irc30, { ...TIP30_VALID_1, symbol: ["FOO"] })), /symbol must be string/);
    assert.match(refused(checkIrcMetadata(IrcStandard.Irc30, bytes('{"standard":"IRC30",'))), /not JSON/);
  });
});

describe("readIrcMetadata", () => {
  const metadata = (value: unknown) => ({ type: FeatureType.Metadata, data: bytes(JSON.stringify(value)) }) as const;
  const nftId = new Uint8Array(32).fill(7);
  const aliasId = new Uint8Array(32).fill(9);
  const tokenId = new Uint8Array(38).fill(8);

  /** An indexer and a store holding `outputs` under chain IDs. */
  function deps(chains: [Uint8Array, Output][]): IrcMetadataDeps {
    const outputIdOf = (i: number) => new Uint8Array(34).fill(i + 1);
    return {
      indexer: {
        catchUp: async () => {},
        chainOutput: async (type, chainId) => {
          const i = chains.findIndex(([id, o]) => bytesEqual(id, chainId) && o.type === type);
          return { ledgerIndex: 5, outputId: i < 0 ? undefined : outputIdOf(i) };
        },
      },
      db: {
        outputs: {
          get: async (outputId: Uint8Array) => {
            const output = chains[outputId[0]! - 1]?.[1];
            return output && ({ outputBytes: encodeOutput(output) } as OutputRecord);
          },
        } as IrcMetadataDeps["db"]["outputs"],
      },
    };
  }

  it("reads an NFT's immutable metadata feature, not its mutable one", async () => {
    const output = nft({
      owner: alice.address,
      nftId,
      features: [metadata({ not: "this" })],
      immutableFeatures: [metadata(TIP27_MINIMAL)],
    });
    const result = await readIrcMetadata(deps([[nftId, output]]), IrcStandard.Irc27, nftId);
    assert.deepEqual(result, { ok: true, metadata: TIP27_MINIMAL });
  });

  it("reads a token's foundry metadata", async () => {
    const output = foundry({ aliasId, serialNumber: 1, immutableFeatures: [metadata(TIP30_VALID_2)] });
    const result = await readIrcMetadata(deps([[tokenId, output]]), IrcStandard.Irc30, tokenId);
    assert.deepEqual(result, { ok: true, metadata: TIP30_VALID_2 });
  });

  it("says why there is none: no output, no feature, a feature that breaks the schema", async () => {
    assert.match(refused(await readIrcMetadata(deps([]), IrcStandard.Irc27, nftId)), /no unspent output of NFT 0x0707/);
    const bare = nft({ owner: alice.address, nftId, features: [metadata(TIP27_MINIMAL)] });
    assert.match(
      refused(await readIrcMetadata(deps([[nftId, bare]]), IrcStandard.Irc27, nftId)),
      /the NFT has no immutable metadata feature/,
    );
    const bareFoundry = foundry({ aliasId, serialNumber: 1 });
    assert.match(
      refused(await readIrcMetadata(deps([[tokenId, bareFoundry]]), IrcStandard.Irc30, tokenId)),
      /the token's foundry has no immutable metadata feature/,
    );
    const wrong = nft({ owner: alice.address, nftId, immutableFeatures: [metadata(TIP30_VALID_1)] });
    assert.match(refused(await readIrcMetadata(deps([[nftId, wrong]]), IrcStandard.Irc27, nftId)), /IRC-27's schema/);
    assert.equal(OutputType.Nft, wrong.type);
  });
});
