import { networkConfigPath, networkConfigToJson, readNetworkConfig } from "../network/index.js";
import { dataDirFlag } from "./flags.js";
import { command } from "./parse.js";
import { runCommand } from "./run.js";

/**
 * `npm start -- network-config [--data-dir d]`: prints the network configuration of the node
 * whose data directory is `d` (`d/network.json`, written by the node at every start, with the
 * addresses it listens on). Give that file to another node with `--network-config` and a
 * `--peer` (or rely on the addresses it lists) to join the network without its coordinator key.
 * Works while the node runs: it reads the file, not the database.
 */

export const networkConfigCommand = command({
  name: "network-config",
  about: [
    "Prints the network configuration of the node in <dir> (protocol parameters, coordinator",
    "public keys, genesis, its P2P addresses). Another node joins with:",
    "  npm start -- --network-config <file> [--peer <multiaddr>] --data-dir <its own dir>",
  ],
  flags: [dataDirFlag],
});

/** Runs the subcommand; returns the process exit code. */
export async function runNetworkConfigCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  return runCommand(
    networkConfigCommand,
    argv,
    async (args) => {
      const path = networkConfigPath(args.dataDir);
      try {
        const config = await readNetworkConfig(path);
        console.log(JSON.stringify(networkConfigToJson(config), null, 2));
        return 0;
      } catch (e) {
        console.error(`error: ${(e as Error).message} (a node writes ${path} when it starts)`);
        return 1;
      }
    },
    { env },
  );
}
