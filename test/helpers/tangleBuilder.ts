import type { FastifyInstance } from "fastify";
import { buildServer } from "../../src/api/server.js";
import { encodeBlock } from "../../src/codec/block.js";
import { compareBytes } from "../../src/codec/hex.js";
import { blockIdFromBytes, networkIdFromName, outputIdFromParts } from "../../src/codec/ids.js";
import { decodeOutput } from "../../src/codec/outputs/output.js";
import type { Block, Output, Payload, TransactionPayload } from "../../src/codec/types.js";
import type { ConsumedOutput } from "../../src/ledger/semantic/types.js";
import type { LedgerNode } from "../../src/node/node.js";
import { Bucket, decodeBlockMetadata, decodeOutputRecord, idKey } from "../../src/storage/index.js";
import type { MilestoneInfo } from "../../src/tangle/tangle.js";
import { openTempNode, type TempNode } from "./node.js";
import { buildTransaction, type TxSpec, type Wallet } from "./txBuilder.js";
import { devWallet, genesisInput } from "./wallet.js";

/**
 * A tangle test builder in the manner of Hornet's testsuite: a real node on a temporary data
 * dir (real LevelDB, real white-flag, real coordinator), and short calls for what tests need —
 * blocks with chosen parents, signed transactions from wallets, milestones, and reads of block
 * metadata and ledger outputs.
 */
export class TangleBuilder {
  private app: FastifyInstance | undefined;

  private constructor(private readonly t: TempNode) {}

  static async create(): Promise<TangleBuilder> {
    return new TangleBuilder(await openTempNode("tb"));
  }

  get node(): LedgerNode {
    return this.t.node;
  }

  /** Reopens the node on the same data dir (a restart). */
  async restart(): Promise<void> {
    await this.t.reopen();
  }

  /** The API over the node (built once; closed by `dispose`). */
  serve(): FastifyInstance {
    this.app ??= buildServer(this.node, "silent");
    return this.app;
  }

  async dispose(): Promise<void> {
    await this.app?.close();
    await this.t.close();
  }

  /** The well-known dev wallet, owner of the genesis output. */
  devWallet(): Wallet {
    return devWallet();
  }

  /** The genesis output as a consumable input. */
  genesis(): ConsumedOutput {
    return genesisInput();
  }

  /** A signed transaction (see txBuilder) and the consumable outputs it creates. */
  transaction(spec: TxSpec): { tx: TransactionPayload; transactionId: Uint8Array; outputs: ConsumedOutput[] } {
    const built = buildTransaction({
      networkId: networkIdFromName(this.node.tangle.protocolParameters.networkName),
      ...spec,
    });
    const outputs = spec.outputs.map((output: Output, i: number) => ({
      outputId: outputIdFromParts(built.ctx.transactionId, i),
      output,
    }));
    return { tx: built.tx, transactionId: built.ctx.transactionId, outputs };
  }

  /** Stores a block with `payload` on `parents` (default: tip selection) and returns its ID. */
  async block(payload?: Payload, parents?: Uint8Array[]): Promise<Uint8Array> {
    const block: Block = {
      protocolVersion: 2,
      parents: [...(parents ?? this.node.tangle.selectParents())].sort(compareBytes),
      ...(payload ? { payload } : {}),
      nonce: 0n,
    };
    return (await this.node.submitBlock(encodeBlock(block))).blockId;
  }

  /** Issues and confirms the next milestone. */
  milestone(): Promise<MilestoneInfo> {
    return this.node.coordinator.issueMilestone();
  }

  async metadata(blockId: Uint8Array) {
    const v = await this.node.store.get(idKey(Bucket.BlockMetadata, blockId));
    if (!v) throw new Error("no such block");
    return decodeBlockMetadata(v);
  }

  async isUnspent(outputId: Uint8Array): Promise<boolean> {
    return this.node.store.has(idKey(Bucket.Unspent, outputId));
  }

  /** Sum of all unspent outputs (must always equal the token supply). */
  async unspentTotal(): Promise<bigint> {
    let total = 0n;
    for await (const key of this.node.store.scanKeys({ prefix: Uint8Array.of(Bucket.Unspent) })) {
      const rec = decodeOutputRecord((await this.node.store.get(idKey(Bucket.Output, key.subarray(1))))!);
      total += decodeOutput(rec.outputBytes).amount;
    }
    return total;
  }
}

/** A block of tagged data (tag `tag`, empty data, nonce 0) on `parents`, with its ID and bytes. */
export function taggedBlock(parents: Uint8Array[], tag: number): { id: Uint8Array; block: Block; bytes: Uint8Array } {
  const block: Block = {
    protocolVersion: 2,
    parents: [...parents].sort(compareBytes),
    payload: { type: 5, tag: Uint8Array.of(tag), data: new Uint8Array() },
    nonce: 0n,
  };
  const bytes = encodeBlock(block);
  return { id: blockIdFromBytes(bytes), block, bytes };
}
