import type { FastifyInstance } from "fastify";
import { buildServer } from "../../src/api/server.js";
/**
 * A ledger where every indexer filter has outputs that match and outputs that do not, built
 * from signed transactions over three milestones (three booking times), and the brute-force
 * oracle the filter tests compare the indexer with: every unspent output of the ledger decoded
 * and judged from the output itself, not from the index entries.
 */
import { addressToBech32, aliasAddressOf } from "../../src/codec/address.js";
import { compareBytes, toHex } from "../../src/codec/hex.js";
import { aliasIdFromOutputId } from "../../src/codec/ids.js";
import { decodeOutput } from "../../src/codec/outputs/output.js";
import {
  type Address,
  FeatureType,
  type Output,
  OutputType,
  type UnlockCondition,
  UnlockConditionType,
} from "../../src/codec/types.js";
import { DEV_TOKEN_SUPPLY } from "../../src/node/devNetwork.js";
import { Bucket, decodeOutputRecord, idKey } from "../../src/storage/index.js";
import { FUTURE, GENESIS, TestLedger } from "./ledgerFixture.js";
import { alias, alice, basic, bob, carol, foundry, nft, token, tokenId, wallet } from "./txBuilder.js";
import { devWallet } from "./wallet.js";

const utf8 = (s: string) => new TextEncoder().encode(s);

export const TAG_A = utf8("tag a");
export const TAG_B = utf8("tag b");
/** Expiration and timelock times the outputs carry (all ahead, so nothing changes hands). */
export const TIMES = [FUTURE, FUTURE + 1000, FUTURE + 2000] as const;

export interface FilterWorld {
  /** Named addresses the filters are tried with. */
  addresses: Record<string, Address>;
  /** Booking timestamps of the three milestones. */
  createdAt: number[];
}

const sdr = (returnAddress: Address): UnlockCondition => ({
  type: UnlockConditionType.StorageDepositReturn,
  returnAddress,
  amount: 100_000n,
});
const exp = (returnAddress: Address, unixTime: number): UnlockCondition => ({
  type: UnlockConditionType.Expiration,
  returnAddress,
  unixTime,
});
const lock = (unixTime: number): UnlockCondition => ({ type: UnlockConditionType.Timelock, unixTime });

export async function buildFilterWorld(ledger: TestLedger): Promise<FilterWorld> {
  const dev = devWallet();
  const [t0, t1, t2] = TIMES;
  const devSender = [{ type: FeatureType.Sender, address: dev.address }] as const;
  const issuer = [{ type: FeatureType.Issuer, address: dev.address }] as const;

  // milestone 1: dev splits the genesis output
  const outs1: Output[] = [
    alias({ stateController: alice.address, governor: bob.address, immutableFeatures: [...issuer] }),
    alias({ stateController: bob.address, governor: alice.address, features: [...devSender] }),
    basic(alice.address, { amount: 20_000_000n }), // alice's funds (2)
    basic(bob.address, { amount: 20_000_000n }), // bob's funds (3)
    basic(alice.address, { unlockConditions: [sdr(bob.address)] }),
    basic(alice.address, { unlockConditions: [exp(carol.address, t0)], features: [...devSender] }),
    basic(bob.address, { unlockConditions: [sdr(carol.address), exp(alice.address, t1)] }),
    basic(carol.address, { unlockConditions: [lock(t0)], features: [{ type: FeatureType.Tag, tag: TAG_A }] }),
    basic(carol.address, {
      unlockConditions: [lock(t2)],
      features: [...devSender, { type: FeatureType.Tag, tag: TAG_B }],
    }),
    basic(bob.address, { unlockConditions: [lock(t1), exp(dev.address, t2)] }),
    nft({ owner: alice.address, immutableFeatures: [...issuer], features: [{ type: FeatureType.Tag, tag: TAG_A }] }),
    nft({ owner: bob.address, unlockConditions: [sdr(carol.address), exp(carol.address, t2)] }),
    nft({ owner: carol.address, unlockConditions: [lock(t1)], features: [...devSender] }),
    basic(dev.address, { amount: 0n }), // the remainder (13), amount set below
  ];
  const spent1 = outs1.reduce((s, o) => s + o.amount, 0n);
  outs1[13] = basic(dev.address, { amount: DEV_TOKEN_SUPPLY - spent1 });
  const tx1 = await ledger.send([GENESIS], outs1, [dev]);
  const ms1 = await ledger.milestone();
  await ledger.assertIncluded(tx1);

  // milestone 2: alice moves her alias and mints two tokens; bob sends with his sender feature
  const aliasId = aliasIdFromOutputId(tx1.outputs[0]!.outputId);
  const tokA = tokenId(aliasId, 1);
  const tokB = tokenId(aliasId, 2);
  const aliceSender = [{ type: FeatureType.Sender, address: alice.address }] as const;
  const tx2 = await ledger.send(
    [tx1.outputs[0]!, tx1.outputs[2]!],
    [
      alias({
        aliasId,
        stateIndex: 1,
        foundryCounter: 2,
        stateController: alice.address,
        governor: bob.address,
        immutableFeatures: [...issuer],
        nativeTokens: [token(tokA, 10n)],
      }),
      foundry({ aliasId, serialNumber: 1, minted: 1000n }),
      foundry({ aliasId, serialNumber: 2, minted: 1000n, nativeTokens: [token(tokB, 100n)] }),
      basic(bob.address, { nativeTokens: [token(tokA, 500n)], features: [...aliceSender] }),
      basic(carol.address, {
        nativeTokens: [token(tokA, 490n), token(tokB, 800n)],
        unlockConditions: [sdr(alice.address)],
        features: [...aliceSender, { type: FeatureType.Tag, tag: TAG_A }],
      }),
      nft({ owner: alice.address, nativeTokens: [token(tokB, 100n)], unlockConditions: [exp(bob.address, t1)] }),
      basic(alice.address, { amount: 21_000_000n - 6_000_000n }),
    ],
    [alice, alice],
  );
  const tx3 = await ledger.send(
    [tx1.outputs[3]!],
    [
      basic(alice.address, {
        unlockConditions: [lock(t2)],
        features: [{ type: FeatureType.Sender, address: bob.address }],
      }),
      basic(carol.address, {
        features: [
          { type: FeatureType.Sender, address: bob.address },
          { type: FeatureType.Tag, tag: TAG_B },
        ],
      }),
      basic(bob.address, { amount: 18_000_000n }),
    ],
    [bob],
  );
  const ms2 = await ledger.milestone();
  await ledger.assertIncluded(tx2);
  await ledger.assertIncluded(tx3);

  // milestone 3: dev spends the remainder into a few more outputs (a third booking time)
  const rest = tx1.outputs[13]!;
  const tx4 = await ledger.send(
    [rest],
    [
      basic(alice.address, { unlockConditions: [exp(dev.address, t0)] }),
      basic(carol.address, { unlockConditions: [sdr(dev.address)], features: [...devSender] }),
      nft({ owner: carol.address, immutableFeatures: [...issuer] }),
      alias({ stateController: carol.address, governor: carol.address }),
      basic(dev.address, { amount: rest.output.amount - 4_000_000n }),
    ],
    [dev],
  );
  const ms3 = await ledger.milestone();
  await ledger.assertIncluded(tx4);

  return {
    addresses: {
      dev: dev.address,
      alice: alice.address,
      bob: bob.address,
      carol: carol.address,
      alias: aliasAddressOf(aliasId),
      otherAlias: aliasAddressOf(aliasIdFromOutputId(tx1.outputs[1]!.outputId)),
      nobody: wallet("nobody").address,
    },
    createdAt: [ms1.timestamp, ms2.timestamp, ms3.timestamp],
  };
}

export const HRP = "tst";

/** Which listing paths take each filter (inx-indexer v1). */
export const ROUTES_OF: Record<string, string[]> = {
  address: ["basic", "nft"],
  unlockableByAddress: ["", "basic", "alias", "foundry", "nft"],
  hasNativeTokens: ["", "basic", "alias", "foundry", "nft"],
  minNativeTokenCount: ["", "basic", "alias", "foundry", "nft"],
  maxNativeTokenCount: ["", "basic", "alias", "foundry", "nft"],
  hasStorageDepositReturn: ["basic", "nft"],
  storageDepositReturnAddress: ["basic", "nft"],
  hasExpiration: ["basic", "nft"],
  expiresBefore: ["basic", "nft"],
  expiresAfter: ["basic", "nft"],
  expirationReturnAddress: ["basic", "nft"],
  hasTimelock: ["basic", "nft"],
  timelockedBefore: ["basic", "nft"],
  timelockedAfter: ["basic", "nft"],
  sender: ["basic", "alias", "nft"],
  tag: ["basic", "nft"],
  issuer: ["alias", "nft"],
  stateController: ["alias"],
  governor: ["alias"],
  aliasAddress: ["foundry"],
  createdBefore: ["", "basic", "alias", "foundry", "nft"],
  createdAfter: ["", "basic", "alias", "foundry", "nft"],
};

/** The values each filter is tried with. */
export function filterValues(world: FilterWorld, name: string): string[] {
  const bech = Object.values(world.addresses).map((a) => addressToBech32(a, HRP));
  const [c0, c1, c2] = world.createdAt as [number, number, number];
  switch (name) {
    case "aliasAddress":
      return [world.addresses.alias!, world.addresses.otherAlias!].map((a) => addressToBech32(a, HRP));
    case "tag":
      return [toHex(TAG_A), toHex(TAG_B), "0x00"];
    case "hasNativeTokens":
    case "hasStorageDepositReturn":
    case "hasExpiration":
    case "hasTimelock":
      return ["true", "false", "1", "F"];
    case "minNativeTokenCount":
    case "maxNativeTokenCount":
      return ["0", "1", "2", "3"];
    case "expiresBefore":
    case "expiresAfter":
    case "timelockedBefore":
    case "timelockedAfter":
      return [...TIMES, TIMES[0] - 1, TIMES[2] + 1].map(String);
    case "createdBefore":
    case "createdAfter":
      return [c0, c1, c2, c0 - 1, c2 + 1].map(String);
    default:
      return bech;
  }
}

// ---------------------------------------------------------------- oracle

export interface LedgerOutput {
  outputId: Uint8Array;
  output: Output;
  createdAt: number;
}

/** Every unspent output of the ledger, in booking order then output ID order. */
export async function unspentOutputs(ledger: TestLedger): Promise<LedgerOutput[]> {
  const store = ledger.node.store;
  const out: LedgerOutput[] = [];
  for await (const key of store.scanKeys({ prefix: Uint8Array.of(Bucket.Unspent) })) {
    const id = key.slice(1);
    const rec = decodeOutputRecord((await store.get(idKey(Bucket.Output, id)))!);
    out.push({ outputId: id, output: decodeOutput(rec.outputBytes), createdAt: rec.bookedTimestamp });
  }
  return out.sort((a, b) => a.createdAt - b.createdAt || compareBytes(a.outputId, b.outputId));
}

/** A filter value as the query string carries it. */
export type Filters = Record<string, string>;

const PATH_TYPES: Record<string, number | undefined> = {
  "": undefined,
  basic: OutputType.Basic,
  alias: OutputType.Alias,
  foundry: OutputType.Foundry,
  nft: OutputType.Nft,
};

function ucAddress(o: Output, type: number): Address | undefined {
  if (o.type === OutputType.Treasury) return undefined;
  for (const uc of o.unlockConditions) {
    if (uc.type !== type) continue;
    if ("address" in uc) return uc.address;
    if ("returnAddress" in uc) return uc.returnAddress;
  }
  return undefined;
}

function ucTime(o: Output, type: number): number | undefined {
  if (o.type === OutputType.Treasury) return undefined;
  for (const uc of o.unlockConditions) if (uc.type === type && "unixTime" in uc) return uc.unixTime;
  return undefined;
}

function featureOf(o: Output, type: number, immutable = false) {
  if (o.type === OutputType.Treasury) return undefined;
  const list = immutable ? (o.type === OutputType.Basic ? [] : o.immutableFeatures) : o.features;
  return list.find((f) => f.type === type);
}

const T = new Set(["true", "1", "t", "T", "TRUE", "True"]);

/** Whether `lo` of the ledger passes every filter, judged from the output itself. */
export function passes(lo: LedgerOutput, path: string, f: Filters, hrp: string): boolean {
  const o = lo.output;
  const type = PATH_TYPES[path];
  if (o.type === OutputType.Treasury) return false;
  if (type !== undefined && o.type !== type) return false;
  const same = (a: Address | undefined, bech: string) => a !== undefined && addressToBech32(a, hrp) === bech;
  const n = o.nativeTokens.length;
  for (const [name, v] of Object.entries(f)) {
    const num = Number(v);
    const ok = (() => {
      switch (name) {
        case "address":
          return same(ucAddress(o, UnlockConditionType.Address), v);
        case "stateController":
          return same(ucAddress(o, UnlockConditionType.StateControllerAddress), v);
        case "governor":
          return same(ucAddress(o, UnlockConditionType.GovernorAddress), v);
        case "aliasAddress":
          return same(ucAddress(o, UnlockConditionType.ImmutableAliasAddress), v);
        case "storageDepositReturnAddress":
          return same(ucAddress(o, UnlockConditionType.StorageDepositReturn), v);
        case "expirationReturnAddress":
          return same(ucAddress(o, UnlockConditionType.Expiration), v);
        case "unlockableByAddress":
          return [
            UnlockConditionType.Address,
            UnlockConditionType.StorageDepositReturn,
            UnlockConditionType.Expiration,
            UnlockConditionType.StateControllerAddress,
            UnlockConditionType.GovernorAddress,
            UnlockConditionType.ImmutableAliasAddress,
          ].some((t) => same(ucAddress(o, t), v));
        case "sender": {
          const s = featureOf(o, FeatureType.Sender);
          return s?.type === FeatureType.Sender && same(s.address, v);
        }
        case "issuer": {
          const s = featureOf(o, FeatureType.Issuer, true);
          return s?.type === FeatureType.Issuer && same(s.address, v);
        }
        case "tag": {
          const t = featureOf(o, FeatureType.Tag);
          return t?.type === FeatureType.Tag && toHex(t.tag) === v;
        }
        case "hasNativeTokens":
          return T.has(v) === n > 0;
        case "minNativeTokenCount":
          return n >= num;
        case "maxNativeTokenCount":
          return n <= num;
        case "hasStorageDepositReturn":
          return T.has(v) === (ucAddress(o, UnlockConditionType.StorageDepositReturn) !== undefined);
        case "hasExpiration":
          return T.has(v) === (ucTime(o, UnlockConditionType.Expiration) !== undefined);
        case "hasTimelock":
          return T.has(v) === (ucTime(o, UnlockConditionType.Timelock) !== undefined);
        case "expiresBefore": {
          const t = ucTime(o, UnlockConditionType.Expiration);
          return t !== undefined && t < num;
        }
        case "expiresAfter": {
          const t = ucTime(o, UnlockConditionType.Expiration);
          return t !== undefined && t > num;
        }
        case "timelockedBefore": {
          const t = ucTime(o, UnlockConditionType.Timelock);
          return t !== undefined && t < num;
        }
        case "timelockedAfter": {
          const t = ucTime(o, UnlockConditionType.Timelock);
          return t !== undefined && t > num;
        }
        case "createdBefore":
          return lo.createdAt < num;
        case "createdAfter":
          return lo.createdAt > num;
        default:
          throw new Error(`the oracle does not know ${name}`);
      }
    })();
    if (!ok) return false;
  }
  return true;
}

/** The output IDs the oracle expects for a listing, in listing order. */
export function expected(all: LedgerOutput[], path: string, f: Filters, hrp: string): string[] {
  return all.filter((lo) => passes(lo, path, f, hrp)).map((lo) => toHex(lo.outputId));
}

/** A TestLedger holding the filter world, the API over it (ready), and every unspent output. */
export async function openFilterWorld(
  name: string,
): Promise<{ ledger: TestLedger; app: FastifyInstance; world: FilterWorld; all: LedgerOutput[] }> {
  const ledger = await TestLedger.open(name);
  const app = buildServer(ledger.node, "silent");
  await app.ready();
  const world = await buildFilterWorld(ledger);
  return { ledger, app, world, all: await unspentOutputs(ledger) };
}
