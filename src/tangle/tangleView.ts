import type { ProtocolParameters } from "../codec/types.js";
import type { BlockMetadataRecord, Repositories, WriteFault } from "../storage/index.js";
import type { MilestoneInfo, NodeEvents } from "./events.js";
import type { TipPoolOptions } from "./tipPool.js";

/**
 * What readers outside the tangle's own layers (the API) see of it: the latest milestone and the
 * parameters, block reads answered from memory or storage, tip selection, the event stream, the
 * store's repositories and the store's state as plain reads. `Tangle` implements it; a reader
 * holding it cannot reach the store itself nor change the DAG.
 */
export interface TangleView {
  readonly events: NodeEvents;
  readonly latestMilestone: MilestoneInfo;
  readonly protocolParameters: ProtocolParameters;
  readonly options: { readonly tipPool: Omit<TipPoolOptions, "belowMaxDepth"> };
  readonly tips: { counts(lmi: number): { nonLazy: number; semiLazy: number } };
  /** Every bucket's reads (storage/repositories.ts). */
  readonly db: Repositories;
  /** The first write the database refused, if any (the node takes nothing from then on). */
  readonly writeFault: WriteFault | undefined;
  /** The directory of the database on disk. */
  readonly databaseLocation: string;
  hasBlock(blockId: Uint8Array): Promise<boolean>;
  getBlockBytes(blockId: Uint8Array): Promise<Uint8Array | undefined>;
  getMetadata(blockId: Uint8Array): Promise<BlockMetadataRecord | undefined>;
  isSolid(blockId: Uint8Array): Promise<boolean>;
  isSolidEntryPoint(blockId: Uint8Array): boolean;
  isBelowMaxDepth(blockId: Uint8Array): Promise<boolean>;
  coneRootIndexes(blockId: Uint8Array): { ycri: number; ocri: number } | undefined;
  milestoneIdAt(index: number): Uint8Array | undefined;
  selectParents(): Uint8Array[];
  /** Resolves once every intake write begun so far is on disk. */
  intakeWritten(): Promise<void>;
}
