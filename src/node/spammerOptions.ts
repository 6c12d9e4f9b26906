import type { NetworkConfig } from "../network/index.js";
import { deriveDevAccounts } from "./devAccounts.js";
import { readKeyFile } from "./keyFiles.js";
import type { NodeOptions } from "./options.js";

/**
 * The key the spammer's value spam pays from (src/spammer), the one place that decides it:
 *
 * - `--spammer-key-file <file>`: the seed in that file (a key file as keyFiles.ts reads them);
 * - otherwise, on a dev network's coordinator with funded dev accounts, the LAST dev account
 *   (`m/44'/<coin type>'/<count - 1>'/0'/0'`): account 0 and the dev key are the ones wallets and
 *   the faucet spend from, and two spenders of one output conflict;
 * - otherwise none: the spammer sends tagged data only.
 */
export async function spammerSeedOf(
  options: NodeOptions,
  network: { isDevCoordinator: boolean; describe(): NetworkConfig },
): Promise<Uint8Array | undefined> {
  if (options.spammerKeyFile !== "") return readKeyFile(options.spammerKeyFile);
  if (!network.isDevCoordinator) return undefined;
  const spec = network.describe().devAccounts;
  if (!spec || spec.count === 0) return undefined;
  return deriveDevAccounts(spec).at(-1)?.seed;
}
