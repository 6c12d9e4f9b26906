/**
 * The dev routes' answers (routes/dev.ts, `/api/dev/v1` on a dev network's coordinator). Types
 * only, for the routes and the dashboard (web/).
 */

/** One funded dev account of `GET /api/dev/v1/accounts`. */
export interface DevAccountJson {
  index: number;
  /** `m/44'/<coin type>'/<index>'/0'/0'` */
  path: string;
  /** bech32 */
  address: string;
  /** 0x hex of the Ed25519 public key */
  publicKey: string;
  /** Base tokens it owns now, a decimal string. */
  balance: string;
}

export interface DevAccountsJson {
  coinType: number;
  accounts: DevAccountJson[];
}

export interface DevMilestoneJson {
  index: number;
  milestoneId: string;
  timestamp: number;
}

/** `GET` and `POST /api/dev/v1/time`. */
export interface DevTimeJson {
  offsetSeconds: number;
  timestamp: number;
  wallClock: number;
  latestMilestoneTimestamp: number;
  nextMilestoneTimestamp: number;
}

/** A saved state (`POST /api/dev/v1/state`, `GET /api/dev/v1/state`). */
export interface DevStateJson {
  id: string;
  milestoneIndex: number;
  savedAt: number;
  entries: number;
}

/** `POST /api/dev/v1/state/{id}/revert` and `POST /api/dev/v1/reset`. */
export interface DevRevertedJson {
  milestoneIndex: number;
  /** The saved states dropped: the one reverted to and every later one (all on a reset). */
  dropped: string[];
}
