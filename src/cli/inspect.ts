import { basename } from "node:path";
import { toHex } from "../codec/hex.js";
import {
  amountOfOutputBytes,
  isSnapshotError,
  readChecksumFile,
  readSnapshot,
  type SnapshotHeader,
  SnapshotType,
} from "../snapshot/index.js";
import { command } from "./parse.js";
import { type CliIo, consoleIo, runCommand } from "./run.js";

/**
 * `npm start -- inspect <snapshot file> [--json]`: reads a TIP-35 snapshot file completely and
 * prints its header and what it holds (outputs by type and their total, milestone diffs, solid
 * entry points), checking it on the way: a damaged file ends with the reason and exit code 1.
 * Reading a large file draws a progress bar on stderr.
 */

/** Where the command writes: lines to `out`, the progress bar to `err`. */
export type InspectIo = CliIo;

/** Files at least this large get a progress bar. */
export const PROGRESS_MIN_BYTES = 16 * 1024 * 1024;

const OUTPUT_TYPES: Record<number, string> = { 2: "treasury", 3: "basic", 4: "alias", 5: "foundry", 6: "nft" };

export const inspectCommand = command({
  name: "inspect",
  about: [
    "Reads a TIP-35 snapshot file (full or delta) to its end and prints its header, the outputs",
    "it holds by type with their total, its milestone diffs and solid entry points. A file that",
    "is truncated or damaged is reported with the reason (exit code 1).",
  ],
  argument: "<snapshot file>",
  flags: [{ key: "json", name: "json", help: "print one JSON object" }],
});

const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

/** A progress bar redrawn in place on a terminal, or a line per tenth elsewhere. */
export function progressBar(err: InspectIo["err"], label: string) {
  let lastDraw = 0;
  let lastTenth = -1;
  return {
    update(done: number, total: number) {
      const fraction = total > 0 ? Math.min(1, done / total) : 1;
      if (err.isTTY) {
        const now = Date.now();
        if (now - lastDraw < 100 && fraction < 1) return;
        lastDraw = now;
        const width = 30;
        const filled = Math.round(fraction * width);
        err.write(
          `\r${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${mib(done)}/${mib(total)}`,
        );
      } else {
        const tenth = Math.floor(fraction * 10);
        if (tenth === lastTenth) return;
        lastTenth = tenth;
        err.write(`${label} ${tenth * 10}% (${mib(done)}/${mib(total)})\n`);
      }
    },
    end() {
      if (err.isTTY) err.write("\n");
    },
  };
}

interface Summary {
  file: string;
  fileSize: number;
  sha256: string;
  checksumFile: "matches" | "differs" | "absent";
  header: Record<string, unknown>;
  outputs: { count: number; total: string; byType: Record<string, number> };
  milestoneDiffs: { count: number; first?: number; last?: number; created: number; consumed: number };
  solidEntryPoints: number;
}

function headerJson(h: SnapshotHeader): Record<string, unknown> {
  if (h.type === SnapshotType.Delta) {
    return {
      version: h.version,
      type: "delta",
      targetMilestoneIndex: h.targetMilestoneIndex,
      targetMilestoneTimestamp: h.targetMilestoneTimestamp,
      fullSnapshotTargetMilestoneId: toHex(h.fullSnapshotTargetMilestoneId),
      sepFileOffset: h.sepFileOffset,
      milestoneDiffCount: h.milestoneDiffCount,
      sepCount: h.sepCount,
    };
  }
  const p = h.protocolParameters.parameters;
  return {
    version: h.version,
    type: "full",
    genesisMilestoneIndex: h.genesisMilestoneIndex,
    targetMilestoneIndex: h.targetMilestoneIndex,
    targetMilestoneTimestamp: h.targetMilestoneTimestamp,
    targetMilestoneId: toHex(h.targetMilestoneId),
    ledgerMilestoneIndex: h.ledgerMilestoneIndex,
    treasuryOutputMilestoneId: toHex(h.treasuryOutputMilestoneId),
    treasuryOutputAmount: h.treasuryOutputAmount.toString(),
    protocolParameters: {
      targetMilestoneIndex: h.protocolParameters.option.targetMilestoneIndex,
      protocolVersion: p.protocolVersion,
      networkName: p.networkName,
      bech32Hrp: p.bech32Hrp,
      minPowScore: p.minPowScore,
      belowMaxDepth: p.belowMaxDepth,
      rentStructure: p.rentStructure,
      tokenSupply: p.tokenSupply.toString(),
    },
    outputCount: h.outputCount,
    milestoneDiffCount: h.milestoneDiffCount,
    sepCount: h.sepCount,
  };
}

/** Reads the whole file and sums it up; throws SnapshotError for a damaged file. */
export async function inspectSnapshot(file: string, onProgress?: (done: number, total: number) => void) {
  const byType: Record<string, number> = {};
  let total = 0n;
  let outputs = 0;
  const diffs = {
    count: 0,
    first: undefined as number | undefined,
    last: undefined as number | undefined,
    created: 0,
    consumed: 0,
  };
  let seps = 0;
  const result = await readSnapshot(
    file,
    {
      output(o) {
        const name = OUTPUT_TYPES[o.outputBytes[0]!] ?? `type ${o.outputBytes[0]}`;
        byType[name] = (byType[name] ?? 0) + 1;
        total += amountOfOutputBytes(o.outputBytes);
        outputs++;
      },
      diff(d) {
        diffs.count++;
        diffs.first ??= d.milestone.index;
        diffs.last = d.milestone.index;
        diffs.created += d.created.length;
        diffs.consumed += d.consumed.length;
      },
      sep() {
        seps++;
      },
    },
    onProgress ? { onProgress } : {},
  );
  const expected = await readChecksumFile(file);
  const summary: Summary = {
    file,
    fileSize: result.fileSize,
    sha256: result.sha256,
    checksumFile: expected === undefined ? "absent" : expected === result.sha256 ? "matches" : "differs",
    header: headerJson(result.header),
    outputs: { count: outputs, total: total.toString(), byType },
    milestoneDiffs: diffs,
    solidEntryPoints: seps,
  };
  return summary;
}

function printSummary(s: Summary, out: (line: string) => void): void {
  const h = s.header;
  const row = (name: string, value: string) => out(`${name.padEnd(18)}${value}`);
  const time = (t: unknown) => new Date(Number(t) * 1000).toISOString();
  const checksum = { matches: "matches", differs: "DOES NOT MATCH", absent: "no checksum file" }[s.checksumFile];
  row("file", `${s.file} (${s.fileSize} bytes)`);
  row("sha256", `${s.sha256} (${basename(s.file)}.sha256: ${checksum})`);
  row("format", `TIP-35 version ${h.version}, ${h.type} snapshot`);
  row("target milestone", `${h.targetMilestoneIndex} at ${time(h.targetMilestoneTimestamp)}`);
  if (h.type === "full") {
    const p = h.protocolParameters as Record<string, unknown>;
    const rent = p.rentStructure as Record<string, number>;
    row("target ID", String(h.targetMilestoneId));
    row("ledger index", String(h.ledgerMilestoneIndex));
    row("genesis index", String(h.genesisMilestoneIndex));
    row("treasury", `${h.treasuryOutputAmount} (milestone ${h.treasuryOutputMilestoneId})`);
    row("network", `${p.networkName} (protocol version ${p.protocolVersion}, bech32 HRP ${p.bech32Hrp})`);
    row(
      "parameters",
      `from milestone ${p.targetMilestoneIndex}: min PoW score ${p.minPowScore}, below max depth ${p.belowMaxDepth}, ` +
        `rent ${rent.vByteCost}/${rent.vByteFactorData}/${rent.vByteFactorKey}, token supply ${p.tokenSupply}`,
    );
    const types = Object.entries(s.outputs.byType)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
    row("outputs", `${s.outputs.count}${types ? ` (${types})` : ""}, total ${s.outputs.total}`);
  } else {
    row("builds on", `full snapshot with target milestone ${h.fullSnapshotTargetMilestoneId}`);
    row("SEP offset", String(h.sepFileOffset));
  }
  const d = s.milestoneDiffs;
  const range = d.count > 0 ? ` (milestones ${d.first}..${d.last})` : "";
  row("milestone diffs", `${d.count}${range}: ${d.created} outputs created, ${d.consumed} consumed`);
  row("entry points", String(s.solidEntryPoints));
}

/** Runs the command; returns the exit code (0 ok, 1 damaged or unreadable file, 2 usage). */
export async function runInspectCommand(
  argv: readonly string[],
  io: InspectIo = consoleIo,
  progressMinBytes = PROGRESS_MIN_BYTES,
): Promise<number> {
  return runCommand(inspectCommand, argv, (args) => inspect(args.argument, args.json, io, progressMinBytes), { io });
}

async function inspect(file: string, json: boolean, io: InspectIo, progressMinBytes: number): Promise<number> {
  let bar: ReturnType<typeof progressBar> | undefined;
  try {
    const summary = await inspectSnapshot(file, (done, total) => {
      if (total < progressMinBytes) return;
      bar ??= progressBar(io.err, "reading");
      bar.update(done, total);
    });
    bar?.end();
    if (json) io.out(JSON.stringify(summary));
    else printSummary(summary, io.out);
    return summary.checksumFile === "differs" ? 1 : 0;
  } catch (e) {
    bar?.end();
    if (isSnapshotError(e)) {
      io.err.write(`error: ${file} is not a valid snapshot (${e.code}): ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
