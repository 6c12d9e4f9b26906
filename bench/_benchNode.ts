import { defaultNodeOptions, type NodeOptions } from "../src/node/options.js";

/**
 * A bench's node: the dev network without funded accounts (the workloads fund their own from
 * the genesis), no PoW minimum (their blocks are not mined unless they say so), nothing logged,
 * on `dataDir`; `more` sets what the bench needs beyond that.
 */
export const benchNodeOptions = (dataDir: string, more: Partial<NodeOptions> = {}): NodeOptions => ({
  ...defaultNodeOptions,
  devAccounts: 0,
  minPowScore: 0,
  logLevel: "silent",
  dataDir,
  ...more,
});
