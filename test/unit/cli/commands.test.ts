import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { nodeCommand, parseArgs } from "../../../src/cli/flags.js";
import { helpText } from "../../../src/cli/help.js";
import { initCommand, keygenCommand } from "../../../src/cli/init.js";
import { inspectCommand } from "../../../src/cli/inspect.js";
import { networkConfigCommand } from "../../../src/cli/networkConfig.js";
import type { Command } from "../../../src/cli/parse.js";
import { type CliIo, runCommand } from "../../../src/cli/run.js";
import { tokenCommand } from "../../../src/cli/token.js";

/** Every command of the CLI, through the one parser: the same messages, exit codes and help format. */
const COMMANDS: Command[] = [
  nodeCommand,
  tokenCommand,
  networkConfigCommand,
  initCommand,
  keygenCommand,
  inspectCommand,
];

/** What a command line makes of `command`: exit code, stdout, stderr; the command itself answers 0. */
async function run(command: Command, argv: string[]) {
  const out: string[] = [];
  let err = "";
  const io: CliIo = { out: (line) => out.push(line), err: { write: (t: string) => (err += t) } };
  const code = await runCommand(command, argv, async () => 0, { env: {}, io });
  return { code, out: out.join("\n"), err };
}

const hint = (c: Command) => `(see ${c.name ? `${c.name} ` : ""}--help)`;
/** A command line that satisfies the command's argument, to test one thing at a time. */
const base = (c: Command) => (c.argument ? ["file"] : []);
const valueFlag = (c: Command) => c.flags.find((f) => f.value);

describe("command line", () => {
  it("says 'unknown flag' the same way in every command, with exit code 2", async () => {
    for (const c of COMMANDS) {
      for (const flag of ["--bogus", "--bogus=1", "-x"]) {
        const r = await run(c, [...base(c), flag]);
        assert.equal(r.code, 2, `${c.name} ${flag}`);
        assert.equal(r.err, `error: unknown flag ${flag.split("=")[0]} ${hint(c)}\n`);
      }
    }
  });

  it("says 'needs a value' the same way in every command", async () => {
    for (const c of COMMANDS) {
      const flag = valueFlag(c);
      if (!flag) continue; // inspect's only flag is a switch
      const r = await run(c, [...base(c), `--${flag.name}`]);
      assert.equal(r.code, 2, c.name);
      assert.equal(r.err, `error: --${flag.name} needs a value ${hint(c)}\n`);
    }
  });

  it("refuses a value on a switch and an argument no command takes, the same way in every command", async () => {
    for (const c of COMMANDS) {
      assert.equal((await run(c, [...base(c), "--help=yes"])).err, `error: --help takes no value ${hint(c)}\n`);
      const r = await run(c, [...base(c), "extra"]);
      assert.equal(r.code, 2);
      assert.equal(r.err, `error: unexpected argument "extra" ${hint(c)}\n`);
    }
  });

  it("refuses a bad number wherever it comes from: flag, environment or config file", async () => {
    const r = await run(nodeCommand, ["--api-port", "12x"]);
    assert.equal(r.code, 2);
    assert.equal(r.err, `error: --api-port takes an integer from 0 to 65535, got "12x" (see --help)\n`);
    assert.match(
      (await run(nodeCommand, ["--faucet-amount=-1"])).err,
      /--faucet-amount takes a non-negative integer, got "-1"/,
    );
    let err = "";
    const io: CliIo = { out: () => {}, err: { write: (t: string) => (err += t) } };
    const env = { LEDGER_NODE_API_PORT: "port" };
    assert.equal(await runCommand(nodeCommand, [], async () => 0, { env, io }), 2);
    assert.equal(err, `error: LEDGER_NODE_API_PORT takes an integer from 0 to 65535, got "port" (see --help)\n`);
    const dir = await mkdtemp(join(tmpdir(), "cli-"));
    const config = join(dir, "config.json");
    await writeFile(config, JSON.stringify({ apiPort: 1.5 }));
    const fromFile = await run(nodeCommand, ["--config", config]);
    assert.equal(fromFile.code, 2);
    assert.equal(
      fromFile.err,
      `error: apiPort in ${config} takes an integer from 0 to 65535, got "1.5" (see --help)\n`,
    );
    // below the environment and the flags, the file's settings count
    await writeFile(config, JSON.stringify({ apiPort: 15000, apiHost: "0.0.0.0", peer: [] }));
    const { options } = parseArgs(["--api-host", "::1", "--config", config], { LEDGER_NODE_API_PORT: "15001" });
    assert.deepEqual([options.apiPort, options.apiHost, options.peers], [15001, "::1", []]);
    assert.equal(parseArgs([], { LEDGER_NODE_CONFIG: config }).options.apiPort, 15000);
    // a misspelt setting, a null, a list where one value belongs, a file that is none
    for (const [settings, message] of [
      [{ apiPrt: 15000 }, /^error: apiPrt in .* is not a setting \(the settings are the flags in camelCase\)/],
      [{ dataDir: null }, /^error: dataDir in .* takes a string, a number or true\/false \(see --help\)/],
      [{ dataDir: ["a", "b"] }, /^error: dataDir in .* takes a string, a number or true\/false \(see --help\)/],
      [{ peer: [{}] }, /^error: peer in .* takes a string, a number or true\/false, or a list of them/],
    ] as const) {
      await writeFile(config, JSON.stringify(settings));
      const r = await run(nodeCommand, ["--config", config]);
      assert.equal(r.code, 2, JSON.stringify(settings));
      assert.match(r.err, message);
    }
    // a switch is true or false in the file
    await writeFile(config, JSON.stringify({ snapshotUnverified: true }));
    assert.equal(parseArgs(["--config", config], {}).options.snapshotUnverified, true);
    await writeFile(config, JSON.stringify({ snapshotUnverified: "yes" }));
    assert.match((await run(nodeCommand, ["--config", config])).err, /snapshotUnverified in .* takes true or false/);
    const fifo = join(dir, "fifo");
    assert.equal(spawnSync("mkfifo", [fifo]).status, 0);
    for (const [file, why] of [
      ["/dev/zero", "not a regular file"],
      [fifo, "not a regular file"],
      [dir, "not a regular file"],
    ]) {
      const r = await run(nodeCommand, ["--config", file]);
      assert.equal(r.code, 2, file);
      assert.match(r.err, new RegExp(`^error: cannot read config file ${file}: ${why}`));
    }
    await rm(dir, { recursive: true });
  });

  it("refuses numbers out of the range a flag can work with, before anything starts", async () => {
    for (const [argv, message] of [
      [["--milestone-interval", "0"], /--milestone-interval takes an integer from 1 to 3600000, got "0"/],
      [["--milestone-interval", "3000000000"], /--milestone-interval takes an integer from 1 to 3600000/],
      [["--min-pow-score", "4294967296"], /--min-pow-score takes an integer from 0 to 4294967295/],
      [["--api-port", "99999"], /--api-port takes an integer from 0 to 65535/],
      [["--explorer-port", "65536"], /--explorer-port takes an integer from 0 to 65535/],
      [["--faucet-batch-size", "0"], /--faucet-batch-size takes an integer from 1 to 127/],
      [["--faucet-batch-size", "500"], /--faucet-batch-size takes an integer from 1 to 127/],
      [["--dev-coin-type", "2147483648"], /--dev-coin-type takes an integer from 0 to 2147483647/],
      [["--faucet-amount", "99999999999999999999999"], /--faucet-amount takes an integer from 0 to 9007199254740991/],
      [["--api-request-timeout", "3000000000"], /--api-request-timeout takes an integer from 0 to 2147483647/],
      [["--pow-workers", "100000"], /--pow-workers takes an integer from 0 to 256/],
    ] as const) {
      const r = await run(nodeCommand, [...argv]);
      assert.equal(r.code, 2, argv.join(" "));
      assert.match(r.err, message);
    }
    // a period only counted, never a timer, may be long: one request per address per 30 days
    assert.equal(parseArgs(["--faucet-address-period", "2592000000"], {}).options.faucetAddressPeriodMs, 2_592_000_000);
  });

  it("words every bad value as '<where> takes <what>, got \"<text>\"'", async () => {
    const cases: [Command, string[], RegExp][] = [
      [nodeCommand, ["--log-level", "loud"], /^error: --log-level takes one of fatal, .*, got "loud" \(see --help\)$/],
      [nodeCommand, ["--faucet", "no"], /^error: --faucet takes true or false, got "no" \(see --help\)$/],
      [nodeCommand, ["--api-cors-origins", "ftp://x"], /^error: --api-cors-origins takes origins .*, got "ftp:\/\/x"/],
      [nodeCommand, ["--peer", "1.2.3.4:5"], /^error: --peer takes TCP multiaddrs .*, got "1.2.3.4:5" \(.+\)/],
      [
        tokenCommand,
        ["--expires-in", "soon"],
        /^error: --expires-in takes a time span .*, got "soon" \(see token --help\)$/,
      ],
      [tokenCommand, ["--expires-in", "0s"], /^error: --expires-in takes a time span above 0 .*, got "0s"/],
    ];
    for (const [c, argv, message] of cases) {
      const r = await run(c, argv);
      assert.equal(r.code, 2, argv.join(" "));
      assert.match(r.err.trim(), message);
    }
  });

  it("names what a command needs: its required flags and its argument", async () => {
    assert.equal(
      (await run(initCommand, [])).err,
      "error: init needs --network <network file> and --data-dir <dir> (see init --help)\n",
    );
    assert.equal(
      (await run(keygenCommand, ["--hrp", "x"])).err,
      "error: keygen needs --out <key file> (see keygen --help)\n",
    );
    assert.equal(
      (await run(inspectCommand, ["--json"])).err,
      "error: inspect needs <snapshot file> (see inspect --help)\n",
    );
    assert.equal((await run(inspectCommand, ["a", "b"])).err, `error: unexpected argument "b" (see inspect --help)\n`);
  });

  it("prints --help (and -h) of every command in one format, exit code 0, even without what it needs", async () => {
    for (const c of COMMANDS) {
      for (const flag of ["--help", "-h"]) {
        const r = await run(c, [flag]);
        assert.equal(r.code, 0, `${c.name} ${flag}`);
        assert.equal(r.err, "");
        assert.equal(r.out, helpText(c));
      }
      const lines = helpText(c).split("\n");
      assert.match(lines[0]!, new RegExp(`^usage: npm start -- ${c.name ? `${c.name} ` : ""}.*\\[flags\\]$`));
      for (const f of c.flags)
        assert.ok(
          lines.some((l) => l.startsWith(`  --${f.name} `)),
          `${c.name}: --${f.name}`,
        );
      assert.equal(lines.filter((l) => l.startsWith("  --help, -h ")).length, 1);
    }
  });

  it("shows defaults, required flags and environment variables in the help rows", () => {
    const node = helpText(nodeCommand);
    assert.match(node, /^ {2}--api-port {13}port of the HTTP API \(default: 14265; env LEDGER_NODE_API_PORT\)$/m);
    assert.match(node, /^ {2}--config .*\(env LEDGER_NODE_CONFIG\)$/m);
    assert.match(helpText(tokenCommand), /--expires-in .*\(default: 30d\)$/m);
    assert.match(
      helpText(initCommand),
      /^usage: npm start -- init --network <network file> --data-dir <dir> \[flags\]$/m,
    );
    assert.match(helpText(initCommand), /--network .*\(required\)$/m);
    assert.match(helpText(inspectCommand), /^usage: npm start -- inspect <snapshot file> \[flags\]$/m);
  });

  it("gives each command its parsed values: lists add up, a flag wins over the environment", async () => {
    let seen: Record<string, unknown> = {};
    const io: CliIo = { out: () => {}, err: { write: () => true } };
    const take = async (values: Record<string, unknown>) => {
      seen = values;
      return 0;
    };
    await runCommand(
      initCommand,
      ["--network=n.json", "--data-dir", "d", "--coordinator-key", "a,b", "--coordinator-key", "c"],
      take,
      { io },
    );
    assert.deepEqual(seen, {
      help: false,
      argument: "",
      network: "n.json",
      dataDir: "d",
      coordinatorKeys: ["a,b", "c"],
    });
    await runCommand(tokenCommand, ["--data-dir", "flag"], take, { env: { LEDGER_NODE_DATA_DIR: "env" }, io });
    assert.equal(seen.dataDir, "flag");
    await runCommand(networkConfigCommand, [], take, { env: { LEDGER_NODE_DATA_DIR: "env" }, io });
    assert.equal(seen.dataDir, "env");
    await runCommand(inspectCommand, ["--json", "--", "--file"], take, { io });
    assert.deepEqual(seen, { help: false, argument: "--file", json: true });
  });

  it("the node process exits with the same message and code 2, for the node and its commands", () => {
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ["dist/src/cli/main.js", ...args], { encoding: "utf8" });
    const node = cli("--bogus");
    assert.equal(node.status, 2);
    assert.equal(node.stderr, "error: unknown flag --bogus (see --help)\n");
    const jwt = cli("jwt", "--bogus");
    assert.equal(jwt.status, 2);
    assert.equal(jwt.stderr, "error: unknown flag --bogus (see token --help)\n");
    const help = cli("--help");
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^usage: npm start -- \[flags\]$/m);
    assert.match(help.stdout, /^ {2}token \| jwt /m);
  });
});
