/** The benches' command-line flags: `--name value` pairs and bare switches, read one way. */

const args = process.argv.slice(2);

/** The value given after `name`, or undefined. */
export function argS(name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** The number given after `name` (a non-negative one), or `def`; anything else stops the bench with its reason. */
export function argN(name: string, def: number): number {
  const given = argS(name);
  if (given === undefined) return def;
  const v = Number(given);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} takes a non-negative number, got "${given}"`);
  return v;
}

/** Whether the switch `name` is given. */
export function hasFlag(name: string): boolean {
  return args.includes(name);
}
