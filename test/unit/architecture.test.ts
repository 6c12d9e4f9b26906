import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

// ARCHITECTURE.md: an import never points upward. Layers from bottom to top.
const LAYERS = [
  "util",
  "crypto",
  "codec",
  "pow",
  "storage",
  "ledger",
  "tangle",
  "snapshot",
  "indexer",
  "network",
  "faucet",
  "api",
  "node",
  "cli",
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

describe("layering", () => {
  it("has no import from a lower layer to a higher one", () => {
    const violations: string[] = [];
    for (const file of files("src")) {
      const layer = file.split(/[\\/]/)[1]!;
      const rank = LAYERS.indexOf(layer);
      assert.ok(rank >= 0, `${file} is in no known layer`);
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/from "(\.\.\/)+([a-z]+)\//g)) {
        const target = LAYERS.indexOf(m[2]!);
        if (target > rank) violations.push(`${file} imports ${m[2]}`);
      }
    }
    assert.deepEqual(violations, []);
  });
});

describe("errors below the API", () => {
  // ARCHITECTURE.md, Conventions: every error thrown below the API is a LedgerNodeError with a
  // code of its layer's enum, which the API maps to a status in one table (src/api/errors.ts).
  it("throws no plain Error and builds no error with a code by hand", () => {
    const offenders: string[] = [];
    const below = new Set(LAYERS.slice(0, LAYERS.indexOf("api")).concat("node"));
    for (const file of files("src")) {
      if (!below.has(file.split(/[\\/]/)[1]!)) continue;
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/(?:throw|onError\(|Object\.assign\()\s*new Error\(/g)) {
        const line = text.slice(0, m.index).split("\n").length;
        offenders.push(`${file}:${line}: ${m[0].replace(/\s+/g, " ")}`);
      }
    }
    assert.deepEqual(offenders, []);
  });
});
