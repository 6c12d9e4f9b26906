import { join } from "node:path";
import { DEFAULT_TOKEN_LIFETIME, issueApiToken } from "../api/auth.js";
import { JWT_KEY_FILE, keysDir, readOptionalKeyFile } from "../node/keyFiles.js";
import { dataDirFlag } from "./flags.js";
import { command, parseCommand, type Values } from "./parse.js";
import { runCommand } from "./run.js";
import { matching } from "./values.js";

/**
 * `npm start -- token [--data-dir d] [--expires-in 7d]`: prints a JWT that opens the protected
 * routes of the node whose data directory is `d`, signed with the secret kept there
 * (`keys/jwt.key`); it reads only that file, so it works while the node runs.
 */

/** jose's time spans: a number and a unit (s, m, h, d, w, y and their long forms), e.g. "7d". */
const TIME_SPAN =
  /^0*[1-9]\d*\s*(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|week|weeks|y|yr|yrs|year|years)$/i;

export const tokenCommand = command({
  name: "token",
  about: [
    "Prints a JWT (HS256) for the protected API routes of the node whose data directory is <dir>.",
    "Send it as: Authorization: Bearer <token>",
  ],
  flags: [
    dataDirFlag,
    {
      key: "expiresIn",
      name: "expires-in",
      value: matching(TIME_SPAN, "a time span above 0 such as 12h, 7d or 1y", "<span>"),
      default: DEFAULT_TOKEN_LIFETIME,
      help: "lifetime of the token, e.g. 12h, 7d, 1y",
    },
  ],
});

export type TokenArgs = Omit<Values<typeof tokenCommand.flags>, "argument">;

export function parseTokenArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): TokenArgs {
  const { argument: _, ...args } = parseCommand(tokenCommand, argv, env);
  return args;
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
  return runCommand(tokenCommand, argv, async (args) => {
    try {
      const secret = await readJwtSecret(args.dataDir);
      console.log(await issueApiToken(secret, args.expiresIn));
      return 0;
    } catch (e) {
      console.error(`error: ${(e as Error).message}`);
      return 1;
    }
  });
}
