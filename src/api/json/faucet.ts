/**
 * The faucet's answers (routes/faucet.ts, inx-faucet's `InfoResponse` and `EnqueueResponse`).
 * Types only, for the routes and the dashboard (web/).
 */

/** `GET /api/faucet/v1/info`; the balance stays a bigint until written (a JSON integer). */
export interface FaucetInfo {
  isHealthy: boolean;
  address: string;
  balance: bigint;
  tokenName: string;
  bech32Hrp: string;
}

/** `POST /api/faucet/v1/enqueue`. */
export interface FaucetEnqueued {
  address: string;
  waitingRequests: number;
}
