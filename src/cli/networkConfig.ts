import { networkConfigPath, networkConfigToJson, readNetworkConfig } from "../network/index.js";
import { defaultNodeOptions } from "../node/options.js";
import { isUsageError, usageError } from "./flags.js";

/**
 * `npm start -- network-config [--data-dir d]`: prints the network configuration of the node
 * whose data directory is `d` (`d/network.json`, written by the node at every start, with the
 * addresses it listens on). Give that file to another node with `--network-config` and a
 * `--peer` (or rely on the addresses it lists) to join the network without its coordinator key.
 * Works while the node runs: it reads the file, not the database.
 */

function parse(argv: readonly string[], env: NodeJS.ProcessEnv): { dataDir: string; help: boolean } {
  const args = { dataDir: env.LEDGER_NODE_DATA_DIR ?? defaultNodeOptions.dataDir, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") {
      args.help = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") ? arg.slice(2, eq < 0 ? undefined : eq) : "";
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (name !== "data-dir") throw usageError(`unexpected argument "${arg}" (see network-config --help)`);
    if (value === undefined) throw usageError("--data-dir needs a value");
    args.dataDir = value;
  }
  return args;
}

/** Runs the subcommand; returns the process exit code. */
export async function runNetworkConfigCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv, env);
  } catch (e) {
    if (isUsageError(e)) {
      console.error(`error: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (args.help) {
    console.log(
      [
        "usage: npm start -- network-config [--data-dir <dir>]",
        "",
        "Prints the network configuration of the node in <dir> (protocol parameters, coordinator",
        "public keys, genesis, its P2P addresses). Another node joins with:",
        "  npm start -- --network-config <file> [--peer <multiaddr>] --data-dir <its own dir>",
        "",
        `  --${"data-dir".padEnd(20)} data directory of the node (default: ${defaultNodeOptions.dataDir}; env LEDGER_NODE_DATA_DIR)`,
      ].join("\n"),
    );
    return 0;
  }
  const path = networkConfigPath(args.dataDir);
  try {
    const config = await readNetworkConfig(path);
    console.log(JSON.stringify(networkConfigToJson(config), null, 2));
    return 0;
  } catch (e) {
    console.error(`error: ${(e as Error).message} (a node writes ${path} when it starts)`);
    return 1;
  }
}
