import { helpHint, helpText } from "./help.js";
import { type Command, type Flag, parseCommand, type Values } from "./parse.js";
import { isUsageError } from "./usageError.js";

/** Where a command writes: lines to `out`, errors (and progress) to `err`. */
export interface CliIo {
  out: (line: string) => void;
  err: { write(text: string): unknown; isTTY?: boolean };
}

export const consoleIo: CliIo = { out: (line) => console.log(line), err: process.stderr };

/**
 * Runs a command: parses `argv` by its declaration, prints its help for `--help` (exit code 0),
 * else runs it. The one place a usage error becomes the exit: `error: <message> (see … --help)`
 * on stderr and exit code 2, for every command.
 */
export async function runCommand<const F extends readonly Flag[], R>(
  command: Command<F>,
  argv: readonly string[],
  run: (values: Values<F>) => Promise<R>,
  { env = process.env, io = consoleIo }: { env?: NodeJS.ProcessEnv; io?: CliIo } = {},
): Promise<R | number> {
  try {
    const values = parseCommand(command, argv, env);
    if (!values.help) return await run(values);
    io.out(helpText(command));
    return 0;
  } catch (e) {
    if (!isUsageError(e)) throw e;
    io.err.write(`error: ${e.message} (${helpHint(command)})\n`);
    return 2;
  }
}
