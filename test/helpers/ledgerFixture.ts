/**
 * A real node on a temporary data directory with a small, fixed ledger history for the indexer
 * and output-read tests: signed transactions submitted as blocks and confirmed by the built-in
 * coordinator, with every created output remembered so later transactions can spend it.
 */
import assert from "node:assert/strict";
import type { FastifyInstance } from "fastify";
import { issueApiToken } from "../../src/api/auth.js";
import { buildServer } from "../../src/api/server.js";
import { aliasAddressOf } from "../../src/codec/address.js";
import { decodeBlock, encodeBlock } from "../../src/codec/block.js";
import { blockIdFromBytes, computeFoundryId, outputIdFromParts } from "../../src/codec/ids.js";
import {
  type Block,
  FeatureType,
  type Output,
  type TransactionPayload,
  UnlockConditionType,
} from "../../src/codec/types.js";
import type { ConsumedOutput } from "../../src/ledger/semantic/index.js";
import { DEV_TOKEN_SUPPLY } from "../../src/node/devNetwork.js";
import type { LedgerNode } from "../../src/node/node.js";
import type { NodeOptions } from "../../src/node/options.js";
import { Bucket, decodeBlockMetadata, idKey } from "../../src/storage/index.js";
import type { MilestoneInfo } from "../../src/tangle/tangle.js";
import { openNode, removeDir, tempDir } from "./node.js";
import {
  alias,
  alice,
  basic,
  bob,
  buildTransaction,
  foundry,
  implicitAliasId,
  implicitNftId,
  nft,
  type Unlocker,
  type Wallet,
} from "./txBuilder.js";
import { devWallet, genesisInput } from "./wallet.js";

export const GENESIS: ConsumedOutput = genesisInput();

export interface SentTransaction {
  transactionId: Uint8Array;
  tx: TransactionPayload;
  blockId: Uint8Array;
  /** The created outputs, ready to be spent by a later transaction. */
  outputs: ConsumedOutput[];
}

export class TestLedger {
  private app: FastifyInstance | undefined;

  private constructor(
    readonly dir: string,
    public node: LedgerNode,
    private readonly overrides: Partial<NodeOptions>,
  ) {}

  static async open(name: string, overrides: Partial<NodeOptions> = {}): Promise<TestLedger> {
    const dir = await tempDir(name);
    return new TestLedger(dir, await openNode(dir, { powWorkers: 0, ...overrides }), overrides);
  }

  /** Closes and opens the node again on the same data directory. */
  async reopen(): Promise<void> {
    await this.node.close();
    this.node = await openNode(this.dir, { powWorkers: 0, ...this.overrides });
  }

  /** Closes the node, runs `meanwhile` (on its data directory), then opens the node again. */
  async whileClosed(meanwhile: () => Promise<void>): Promise<void> {
    await this.node.close();
    await meanwhile();
    this.node = await openNode(this.dir, { powWorkers: 0, ...this.overrides });
  }

  /** The API over the node (closed with the ledger) and a JWT for its protected routes. */
  async serve(): Promise<{ app: FastifyInstance; token: string }> {
    this.app = buildServer(this.node, "silent");
    return { app: this.app, token: await issueApiToken(this.node.jwtSecret) };
  }

  async close(): Promise<void> {
    await this.app?.close();
    await this.node.close();
    await removeDir(this.dir);
  }

  /** Builds, signs and submits a transaction (confirmed by the next milestone). */
  async send(inputs: ConsumedOutput[], outputs: Output[], unlockers: Unlocker[]): Promise<SentTransaction> {
    const built = buildTransaction({ inputs, outputs, unlockers });
    const block: Block = {
      protocolVersion: 2,
      parents: this.node.tangle.selectParents(),
      payload: built.tx,
      nonce: 0n,
    };
    const bytes = encodeBlock(block);
    const blockId = blockIdFromBytes(bytes);
    await this.node.tangle.storeBlock(blockId, decodeBlock(bytes), bytes, false);
    const transactionId = built.ctx.transactionId;
    return {
      transactionId,
      tx: built.tx,
      blockId,
      outputs: outputs.map((output, i) => ({
        outputId: outputIdFromParts(transactionId, i),
        output,
        bookedMilestoneIndex: 0,
        bookedTimestamp: 0,
      })),
    };
  }

  async milestone(): Promise<MilestoneInfo> {
    return this.node.coordinator.issueMilestone();
  }

  /** Fails unless the block's transaction was applied to the ledger. */
  async assertIncluded(sent: SentTransaction): Promise<void> {
    const meta = decodeBlockMetadata((await this.node.store.get(idKey(Bucket.BlockMetadata, sent.blockId)))!);
    assert.equal(meta.inclusionState, 1, `transaction not included (conflict reason ${meta.conflictReason})`);
  }
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Far enough ahead that nothing expires or unlocks while the tests run. */
export const FUTURE = Math.floor(Date.now() / 1000) + 86_400;
export const TAG = utf8("ledger-node tag");

/**
 * The history every indexer test reads:
 * - milestone A, transaction `split` from the genesis: alice gets a plain basic output (0), one
 *   with a storage deposit return and an expiration to the dev key, a sender and a tag (1), one
 *   with a timelock (2); two aliases controlled by alice and governed by bob, issued by dev (3, 6);
 *   an NFT of alice issued by dev with a tag (4); the remainder back to dev (5);
 * - milestone B, transaction `transition`: alice moves alias 3 to state index 1, creating its
 *   first foundry with her basic output 0 as funds; transaction `destroy`: bob destroys alias 6.
 */
export interface History {
  dev: Wallet;
  alice: Wallet;
  bob: Wallet;
  split: SentTransaction;
  transition: SentTransaction;
  destroy: SentTransaction;
  msA: MilestoneInfo;
  msB: MilestoneInfo;
  aliasId: Uint8Array;
  destroyedAliasId: Uint8Array;
  nftId: Uint8Array;
  foundryId: Uint8Array;
}

export async function buildHistory(ledger: TestLedger): Promise<History> {
  const dev = devWallet();
  const issuer = [{ type: FeatureType.Issuer, address: dev.address }] as const;
  const outputs: Output[] = [
    basic(alice.address),
    basic(alice.address, {
      unlockConditions: [
        { type: UnlockConditionType.StorageDepositReturn, returnAddress: dev.address, amount: 100_000n },
        { type: UnlockConditionType.Expiration, returnAddress: dev.address, unixTime: FUTURE },
      ],
      features: [
        { type: FeatureType.Sender, address: dev.address },
        { type: FeatureType.Tag, tag: TAG },
      ],
    }),
    basic(alice.address, { unlockConditions: [{ type: UnlockConditionType.Timelock, unixTime: FUTURE + 100 }] }),
    alias({ stateController: alice.address, governor: bob.address, immutableFeatures: [...issuer] }),
    nft({ owner: alice.address, immutableFeatures: [...issuer], features: [{ type: FeatureType.Tag, tag: TAG }] }),
  ];
  outputs.push(basic(dev.address, { amount: DEV_TOKEN_SUPPLY - 6_000_000n }));
  outputs.push(alias({ stateController: alice.address, governor: bob.address, immutableFeatures: [...issuer] }));
  const split = await ledger.send([GENESIS], outputs, [dev]);
  const msA = await ledger.milestone();
  await ledger.assertIncluded(split);

  const aliasId = implicitAliasId(split.outputs[3]!);
  const destroyedAliasId = implicitAliasId(split.outputs[6]!);
  const nftId = implicitNftId(split.outputs[4]!);
  const transition = await ledger.send(
    [split.outputs[3]!, split.outputs[0]!],
    [
      alias({
        aliasId,
        stateIndex: 1,
        foundryCounter: 1,
        stateController: alice.address,
        governor: bob.address,
        immutableFeatures: [...issuer],
      }),
      foundry({ aliasId, serialNumber: 1 }),
    ],
    [alice, alice],
  );
  const destroy = await ledger.send([split.outputs[6]!], [basic(bob.address)], [bob]);
  const msB = await ledger.milestone();
  await ledger.assertIncluded(transition);
  await ledger.assertIncluded(destroy);
  return {
    dev,
    alice,
    bob,
    split,
    transition,
    destroy,
    msA,
    msB,
    aliasId,
    destroyedAliasId,
    nftId,
    foundryId: computeFoundryId(aliasId, 1, 0),
  };
}

export { aliasAddressOf };
