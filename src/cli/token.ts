import { join } from "node:path";
import { DEFAULT_TOKEN_LIFETIME, issueApiToken } from "../api/auth.js";
import { JWT_KEY_FILE, keysDir, readOptionalKeyFile } from "../node/keyFiles.js";
import { defaultNodeOptions } from "../node/options.js";
import { isUsageError, usageError } from "./flags.js";

/**
 * `npm start -- token [--data-dir d] [--expires-in 7d]`: prints a JWT that opens the protected
 * routes of the node whose data directory is `d`, signed with the secret kept there
 * (`keys/jwt.key`); it reads only that file, so it works while the node runs.
 */

export interface TokenArgs {
  dataDir: string;
  expiresIn: string;
  help: boolean;
}

/** jose's time spans: a number and a unit (s, m, h, d, w, y and their long forms), e.g. "7d". */
const TIME_SPAN =
  /^\d+\s*(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|week|weeks|y|yr|yrs|year|years)$/i;

export function parseTokenArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): TokenArgs {
  const args: TokenArgs = {
    dataDir: env.LEDGER_NODE_DATA_DIR ?? defaultNodeOptions.dataDir,
    expiresIn: DEFAULT_TOKEN_LIFETIME,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") {
      args.help = true;
      continue;
    }
    if (!arg.startsWith("--")) throw usageError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw usageError(`--${name} needs a value`);
    if (name === "data-dir") args.dataDir = value;
    else if (name === "expires-in") {
      if (!TIME_SPAN.test(value.trim())) {
        throw usageError(`--expires-in takes a time span such as 12h, 7d or 1y, got "${value}"`);
      }
      args.expiresIn = value.trim();
    } else throw usageError(`unknown flag --${name} (see token --help)`);
  }
  return args;
}

export function tokenHelpText(): string {
  return [
    "usage: npm start -- token [--data-dir <dir>] [--expires-in <span>]",
    "",
    "Prints a JWT (HS256) for the protected API routes of the node whose data directory is <dir>.",
    "Send it as: Authorization: Bearer <token>",
    "",
    "Stop the node first: its LevelDB database is opened by one process at a time.",
    "",
    `  --${"data-dir".padEnd(20)} data directory of the node (default: ${defaultNodeOptions.dataDir}; env LEDGER_NODE_DATA_DIR)`,
    `  --${"expires-in".padEnd(20)} lifetime of the token, e.g. 12h, 7d, 1y (default: ${DEFAULT_TOKEN_LIFETIME})`,
    `  --${"help".padEnd(20)} this text`,
  ].join("\n");
}

/**
 * Reads the node's JWT secret from its key file (`<data-dir>/keys/jwt.key`), never from the
 * database, so it works while the node runs.
 */
export async function readJwtSecret(dataDir: string): Promise<Uint8Array> {
  const secret = await readOptionalKeyFile(dataDir, JWT_KEY_FILE);
  if (!secret)
    throw new Error(`no JWT secret in ${join(keysDir(dataDir), JWT_KEY_FILE)}: start the node once to create it`);
  return secret;
}

/** Runs the subcommand; returns the process exit code. */
export async function runTokenCommand(argv: readonly string[]): Promise<number> {
  let args: TokenArgs;
  try {
    args = parseTokenArgs(argv);
  } catch (e) {
    if (isUsageError(e)) {
      console.error(`error: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (args.help) {
    console.log(tokenHelpText());
    return 0;
  }
  try {
    const secret = await readJwtSecret(args.dataDir);
    console.log(await issueApiToken(secret, args.expiresIn));
    return 0;
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    return 1;
  }
}
