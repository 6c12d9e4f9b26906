import { parseArgs as tokenize } from "node:util";
import { MAX_SETTINGS_FILE_BYTES, readBoundedFileSync } from "../util/boundedFile.js";
import { isUsageError, usageError } from "./usageError.js";
import { text, type ValueType } from "./values.js";

/**
 * The one command-line parser: each command declares its flags once (a `Command`), and the same
 * declaration gives its parsed values (here), its `--help` (help.ts) and its exit on a usage
 * error (run.ts). Node's util.parseArgs splits the argv into tokens; the checks and their
 * messages are ours, so every command words an unknown flag or a bad value the same way.
 */

export interface Flag<K extends string = string, T = unknown> {
  /** Where its value goes in the parsed values. */
  key: K;
  /** The flag without its dashes. */
  name: string;
  help: string;
  /** What it takes; without, it is a switch: true when given, and it takes no value. */
  value?: ValueType<T>;
  default?: T;
  /** Also read from the environment, `LEDGER_NODE_<NAME>`; a flag wins over it. */
  env?: boolean;
  required?: boolean;
  short?: string;
}

export interface Command<F extends readonly Flag[] = readonly Flag[]> {
  /** `npm start -- <name>`; "" for the node itself. */
  name: string;
  /** What the command does, for its help. */
  about: readonly string[];
  flags: F;
  /** The one argument it takes besides flags, e.g. `<snapshot file>` (then required). */
  argument?: string;
  /** It takes `--config <file>`: a JSON object of further settings, keys the flag names in camelCase. */
  config?: boolean;
  /** Commands of their own, listed in its help. */
  commands?: readonly { name: string; help: string }[];
}

type ValueOf<F> = F extends { value: ValueType<infer T> }
  ? F extends { default: unknown } | { required: true }
    ? T
    : T | undefined
  : boolean;

/** What parseCommand gives: each flag's value under its key, `--help`, and the argument ("" when none). */
export type Values<F extends readonly Flag[]> = { [E in F[number] as E["key"]]: ValueOf<E> } & {
  help: boolean;
  argument: string;
};

/** Declares a command (the identity, for its flags' types). */
export function command<const F extends readonly Flag[]>(spec: Command<F>): Command<F> {
  return spec;
}

export const HELP_FLAG: Flag = { key: "help", name: "help", short: "h", help: "this text" };
export const CONFIG_FLAG: Flag = {
  key: "config",
  name: "config",
  value: text("<file>"),
  env: true,
  help: "JSON config file with the same settings in camelCase",
};

/** Every flag the command takes, its own and the built-in ones. */
export function flagsOf(command: Command): readonly Flag[] {
  return [...command.flags, ...(command.config ? [CONFIG_FLAG] : []), HELP_FLAG];
}

export const envName = (flag: string) => `LEDGER_NODE_${flag.toUpperCase().replace(/-/g, "_")}`;

/** A config file's settings, keys the flag names in camelCase. */
interface ConfigFile {
  path: string;
  settings: Record<string, unknown>;
}

const NO_FILE: ConfigFile = { path: "", settings: {} };

/** Where a flag's text came from (a flag, a variable, the config file) and the text itself. */
interface Given {
  where: string;
  texts: string[];
}

export function parseCommand<const F extends readonly Flag[]>(
  command: Command<F>,
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Values<F> {
  const flags = flagsOf(command);
  const { fromFlags, args } = tokens(flags, argv);
  const extra = args[command.argument ? 1 : 0];
  if (extra !== undefined) throw usageError(`unexpected argument "${extra}"`);
  const fromFile = command.config ? readConfig(given(CONFIG_FLAG, fromFlags, env, NO_FILE), command.flags) : NO_FILE;
  const values: Record<string, unknown> = { help: fromFlags.has(HELP_FLAG.name), argument: args[0] ?? "" };
  for (const flag of command.flags) {
    if (!flag.value) values[flag.key] = fromFlags.has(flag.name) || fromFile.settings[settingOf(flag)] === true;
    else values[flag.key] = parsedValue(flag.value, given(flag, fromFlags, env, fromFile)) ?? flag.default;
  }
  const missing = command.flags
    .filter((f) => f.required && f.value && values[f.key] === undefined)
    .map((f) => `--${f.name} ${f.value!.placeholder}`);
  if (command.argument && !values.argument) missing.unshift(command.argument);
  if (missing.length > 0 && !values.help) throw usageError(`${command.name} needs ${missing.join(" and ")}`);
  return values as Values<F>;
}

/** The texts given to each flag (repeatable ones add up, others keep the last) and the arguments. */
function tokens(flags: readonly Flag[], argv: readonly string[]) {
  const options = Object.fromEntries(
    flags.map((f) => [
      f.name,
      { type: f.value ? "string" : "boolean", ...(f.short ? { short: f.short } : {}) } as const,
    ]),
  );
  // not strict: a value is the next word whatever it looks like (`--api-port -1` is refused as a number)
  const parsed = tokenize({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const fromFlags = new Map<string, string[]>();
  const args: string[] = [];
  for (const token of parsed.tokens) {
    if (token.kind === "positional") args.push(token.value);
    if (token.kind !== "option") continue;
    const flag = flags.find((f) => f.name === token.name);
    if (!flag) throw usageError(`unknown flag ${token.rawName}`);
    if (!flag.value && token.value !== undefined) throw usageError(`${token.rawName} takes no value`);
    if (flag.value && token.value === undefined) throw usageError(`${token.rawName} needs a value`);
    const before = flag.value?.repeatable ? (fromFlags.get(flag.name) ?? []) : [];
    fromFlags.set(flag.name, [...before, token.value ?? "true"]);
  }
  return { fromFlags, args };
}

/** A flag's text: from the command line, else the environment, else the config file. */
function given(
  flag: Flag,
  fromFlags: Map<string, string[]>,
  env: NodeJS.ProcessEnv,
  fromFile: ConfigFile,
): Given | undefined {
  const texts = fromFlags.get(flag.name);
  if (texts) return { where: `--${flag.name}`, texts };
  const variable = envName(flag.name);
  if (flag.env && env[variable] !== undefined) return { where: variable, texts: [env[variable]] };
  const key = settingOf(flag);
  const value = fromFile.settings[key];
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value.map(String) : [String(value)];
  return { where: `${key} in ${fromFile.path}`, texts: flag.value?.repeatable ? list : [list.join(",")] };
}

function parsedValue<T>(type: ValueType<T>, from: Given | undefined): T | undefined {
  if (!from) return undefined;
  try {
    return type.repeatable
      ? (from.texts.flatMap((t) => type.parse(t) as unknown[]) as T)
      : type.parse(from.texts.at(-1)!);
  } catch (e) {
    if (isUsageError(e)) throw usageError(`${from.where} ${e.message}`);
    throw e;
  }
}

/** The setting of `flag` in a config file: its name in camelCase. */
const settingOf = (flag: Flag) => flag.name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * A config file's settings, each the setting of a flag of the command (a misspelt one would
 * silently leave the default in force) and a string, a number or a boolean, or a list of them
 * for a flag that may be repeated.
 */
function readConfig(from: Given | undefined, flags: readonly Flag[]): ConfigFile {
  if (!from) return NO_FILE;
  const path = from.texts.at(-1)!;
  let settings: unknown;
  try {
    settings = JSON.parse(readBoundedFileSync(path, MAX_SETTINGS_FILE_BYTES, usageError));
  } catch (e) {
    throw usageError(`cannot read config file ${path}: ${(e as Error).message}`);
  }
  if (typeof settings !== "object" || settings === null || Array.isArray(settings))
    throw usageError(`cannot read config file ${path}: it is not a JSON object`);
  const known = new Map(flags.map((f) => [settingOf(f), f]));
  for (const [key, value] of Object.entries(settings)) {
    const flag = known.get(key);
    if (!flag) throw usageError(`${key} in ${path} is not a setting (the settings are the flags in camelCase)`);
    // a switch (a flag without a value) is true or false in the file
    if (!flag.value) {
      if (typeof value !== "boolean") throw usageError(`${key} in ${path} takes true or false`);
      continue;
    }
    const items = Array.isArray(value) && flag.value?.repeatable ? value : [value];
    if (!items.every((v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean"))
      throw usageError(
        `${key} in ${path} takes a string, a number or true/false${flag.value?.repeatable ? ", or a list of them" : ""}`,
      );
  }
  return { path, settings: settings as Record<string, unknown> };
}
