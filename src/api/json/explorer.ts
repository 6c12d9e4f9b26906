/**
 * The explorer's answers (Chronicle's explorer v2: routes/explorer.ts, explorerBlocks.ts,
 * explorerLedger.ts). Cursors are null on the last page. Types only, for the routes and the
 * dashboard (web/).
 */

/** `GET /api/explorer/v2/milestones`. */
export interface MilestonesPage {
  items: { milestoneId: string; index: number }[];
  cursor: string | null;
}

/** `GET /api/explorer/v2/milestones/{milestoneId | by-index/{index}}/blocks`, in white-flag order. */
export interface MilestoneBlocksPage {
  blocks: { blockId: string; payloadType: number | null }[];
  cursor: string | null;
}

/** `GET /api/explorer/v2/blocks/{blockId}/children`. */
export interface ChildrenPage {
  blockId: string;
  maxResults: number;
  count: number;
  children: string[];
  cursor: string | null;
}

/** `GET /api/explorer/v2/balance/{address}`. */
export interface BalanceAnswer {
  totalBalance: string;
  availableBalance: string;
  ledgerIndex: number;
}

/** `GET /api/explorer/v2/ledger/updates/by-milestone/{milestoneId}`. */
export interface MilestoneUpdates {
  milestoneIndex: number;
  items: { address: string; outputId: string; isSpent: boolean }[];
  cursor: string | null;
}

/** `GET /api/explorer/v2/ledger/updates/by-address/{address}`. */
export interface AddressUpdates {
  address: string;
  items: { milestoneIndex: number; outputId: string; isSpent: boolean }[];
  cursor: string | null;
}

/** `GET /api/explorer/v2/ledger/richest-addresses`. */
export interface Richest {
  top: { address: string; balance: string }[];
  ledgerIndex: number;
}

/** `GET /api/explorer/v2/ledger/token-distribution`. */
export interface Distribution {
  distribution: { addressCount: number; totalBalance: string; range: { start: number; end: number } }[];
  ledgerIndex: number;
}
