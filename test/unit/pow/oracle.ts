import { createRequire } from "node:module";

/**
 * `@iota/pow-node.js@2.0.0-rc.3` (a test-only dependency) and the PoW helper of the
 * `@iota/crypto.js` it ships with, loaded the way the package itself loads it, as the
 * independent oracle for scores and mining.
 */
const require = createRequire(import.meta.url);
const powNodePath = require.resolve("@iota/pow-node.js");

interface NodePowProviderClass {
  new (numCpus?: number): { pow(block: Uint8Array, targetScore: number): Promise<string> };
}
interface OraclePowHelper {
  score(block: Uint8Array): number;
  calculateTargetZeros(block: Uint8Array, targetScore: number): number;
}

export const { NodePowProvider } = require(powNodePath) as { NodePowProvider: NodePowProviderClass };
export const { PowHelper: OraclePow } = createRequire(powNodePath)("@iota/crypto.js") as { PowHelper: OraclePowHelper };
