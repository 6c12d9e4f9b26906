import type { JsonObject } from "../../codec/json.js";
import type { OutputJson } from "../../codec/outputs/output.js";

/**
 * Response bodies of the core REST API v2, as Hornet serves them and `@iota/iota.js@2.0.0-rc.4`
 * reads them (TIP-25). Optional fields are left out, never null, exactly where Hornet omits
 * them (Go's `omitempty`).
 */

/** `GET /api/core/v2/info` `status.latestMilestone` / `confirmedMilestone`. */
export interface MilestoneInfoJson {
  index: number;
  /** Left out before the first milestone. */
  timestamp?: number;
  /** Left out before the first milestone. */
  milestoneId?: string;
}

export interface InfoJson {
  name: string;
  version: string;
  status: {
    isHealthy: boolean;
    /** The ledger has caught up with the network's latest milestone (always true without P2P). */
    isSynced: boolean;
    latestMilestone: MilestoneInfoJson;
    confirmedMilestone: MilestoneInfoJson;
    pruningIndex: number;
  };
  supportedProtocolVersions: number[];
  protocol: JsonObject;
  pendingProtocolParameters: JsonObject[];
  baseToken: {
    name: string;
    tickerSymbol: string;
    unit: string;
    subunit?: string;
    decimals: number;
    useMetricPrefix: boolean;
  };
  metrics: { blocksPerSecond: number; referencedBlocksPerSecond: number; referencedRate: number };
  features: string[];
  /** The P2P layer: this node's peer ID and addresses, its connected and synced peers. */
  network?: { peerId: string; multiAddresses: string[]; connectedPeers: number; syncedPeers: number };
}

export interface TipsJson {
  tips: string[];
}

export interface RoutesJson {
  routes: string[];
}

/** `POST /api/core/v2/blocks` (201). */
export interface BlockCreatedJson {
  blockId: string;
}

/** TIP-25 ledger inclusion state of a referenced block. */
export type LedgerInclusionStateJson = "noTransaction" | "included" | "conflicting";

/** `GET /api/core/v2/blocks/:blockId/metadata`. */
export interface BlockMetadataJson {
  blockId: string;
  parents: string[];
  isSolid: boolean;
  /** Only once referenced. */
  referencedByMilestoneIndex?: number;
  /** Only for a block carrying a milestone payload. */
  milestoneIndex?: number;
  /** Only once referenced. */
  ledgerInclusionState?: LedgerInclusionStateJson;
  /** Only for a conflicting transaction (Hornet's conflict reason codes). */
  conflictReason?: number;
  /** Only for a solid block not referenced yet. */
  shouldPromote?: boolean;
  /** Only for a solid block not referenced yet. */
  shouldReattach?: boolean;
  /** Only once referenced: position of the block in the milestone's white-flag order. */
  whiteFlagIndex?: number;
}

/** `GET /api/core/v2/outputs/:outputId/metadata`. */
export interface OutputMetadataJson {
  blockId: string;
  transactionId: string;
  outputIndex: number;
  isSpent: boolean;
  /** Only when spent. */
  milestoneIndexSpent?: number;
  /** Only when spent. */
  milestoneTimestampSpent?: number;
  /** Only when spent. */
  transactionIdSpent?: string;
  milestoneIndexBooked: number;
  milestoneTimestampBooked: number;
  ledgerIndex: number;
}

/** `GET /api/core/v2/outputs/:outputId`. */
export interface OutputJsonResponse {
  metadata: OutputMetadataJson;
  output: OutputJson;
}

/** `GET /api/core/v2/milestones/.../utxo-changes`. */
export interface UtxoChangesJson {
  index: number;
  createdOutputs: string[];
  consumedOutputs: string[];
}

/** `GET /api/core/v2/treasury` (TIP-25): the treasury output's milestone and tokens (decimal). */
export interface TreasuryJson {
  milestoneId: string;
  amount: string;
}

/** `GET /api/core/v2/receipts[/{migratedAt}]` (TIP-25): receipts with the milestone that carried each. */
export interface ReceiptsJson {
  receipts: { receipt: Record<string, unknown>; milestoneIndex: number }[];
}

/** The names of TIP-25 inclusion states by the stored code (records.ts `InclusionState`). */
export const LEDGER_INCLUSION_STATES: readonly LedgerInclusionStateJson[] = [
  "noTransaction",
  "included",
  "conflicting",
];
