import { createRequire } from "node:module";

/**
 * The official SDK's wallet (`@iota/sdk-wasm@1.1.3`, its Node build: CommonJS), typed by hand:
 * only what the tests call.
 */

export interface SdkAccount {
  addresses(): Promise<{ address: string }[]>;
  sync(options?: { forceSyncing?: boolean }): Promise<{ baseCoin: { total: bigint | string } }>;
  sendWithParams(
    params: { address: string; amount: string }[],
    options?: { allowMicroAmount?: boolean },
  ): Promise<SdkTransaction>;
  prepareOutput(params: {
    recipientAddress: string;
    amount: string;
    unlocks?: { timelockUnixTime?: number; expirationUnixTime?: number };
  }): Promise<unknown>;
  sendOutputs(outputs: unknown[]): Promise<SdkTransaction>;
}

export interface SdkTransaction {
  transactionId: string;
  blockId?: string;
  payload: { essence: { outputs: unknown[] } };
}

export const sdk = createRequire(import.meta.url)("@iota/sdk-wasm/node/lib/index.js") as {
  CoinType: { Shimmer: number };
  Wallet: new (options: {
    storagePath: string;
    clientOptions: { nodes: string[] };
    coinType: number;
    secretManager: { mnemonic: string };
  }) => {
    createAccount(data: { alias: string }): Promise<SdkAccount>;
    destroy(): Promise<void>;
  };
};
