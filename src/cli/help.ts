import { type Command, envName, type Flag, flagsOf } from "./parse.js";

/** `--help` of a command, from its declaration: usage line, what it does, a row per flag, its commands. */
export function helpText(command: Command): string {
  const lines = [`usage: ${usageLine(command)}`, "", ...command.about, "", ...flagsOf(command).map(flagRow)];
  if (command.commands) {
    const rows = command.commands.map((c) => `  ${c.name.padEnd(22)} ${c.help}`);
    lines.push("", "commands (npm start -- <command> --help for theirs):", ...rows);
  }
  return lines.join("\n");
}

/** `npm start -- inspect <snapshot file> [flags]`: the argument and required flags, the rest as [flags]. */
export function usageLine(command: Command): string {
  const required = command.flags.filter((f) => f.required).map((f) => `--${f.name} ${f.value?.placeholder ?? ""}`);
  return ["npm start --", command.name, command.argument, ...required, "[flags]"].filter(Boolean).join(" ");
}

/** Where a usage error sends the reader. */
export const helpHint = (command: Command) => `see ${command.name ? `${command.name} ` : ""}--help`;

function flagRow(flag: Flag): string {
  const label = `--${flag.name}${flag.short ? `, -${flag.short}` : ""}`;
  const notes: string[] = [];
  if (flag.required) notes.push("required");
  else if (flag.value && shown(flag.default) !== "") notes.push(`default: ${shown(flag.default)}`);
  if (flag.env) notes.push(`env ${envName(flag.name)}`);
  return `  ${label.padEnd(22)} ${flag.help}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`;
}

/** A default as one would type it; "" for none (nothing, an empty list). */
const shown = (value: unknown) => (Array.isArray(value) ? value.join(",") : String(value ?? ""));
