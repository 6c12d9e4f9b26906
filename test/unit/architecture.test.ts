import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
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
  "spammer",
  "api",
  "node",
  "cli",
];

function files(dir: string, ext = /\.ts$/): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path, ext) : ext.test(path) ? [path] : [];
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

// ---- the web app (web/src) ----

/** An import of a module: what it names, and whether it is erased from the bundle (types only). */
interface Import {
  specifier: string;
  typeOnly: boolean;
}

/**
 * The imports of a TypeScript module: `import`/`export … from`, side-effect imports and dynamic
 * `import()`. An import is types only when it says `import type`/`export type`, or when each of
 * its named specifiers is marked `type` (TypeScript erases it whole then).
 */
function importsOf(text: string): Import[] {
  const found: Import[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?([^"';]*?)\s+from\s+"([^"]+)"/gm)) {
    const names = m[2]!;
    const braces = /^\{([^}]*)\}$/.exec(names.trim());
    const allTyped =
      braces !== null &&
      braces[1]!
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x !== "")
        .every((x) => x.startsWith("type "));
    found.push({ specifier: m[3]!, typeOnly: m[1] !== undefined || allTyped });
  }
  for (const m of text.matchAll(/^\s*import\s+"([^"]+)"/gm)) found.push({ specifier: m[1]!, typeOnly: false });
  for (const m of text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) found.push({ specifier: m[1]!, typeOnly: false });
  return found;
}

/** The file a relative specifier names (".js" of src/ names its ".ts"), or undefined for a package or an asset. */
function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = join(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, `${base}.tsx`, join(base, "index.ts")];
  return candidates.find((c) => /\.tsx?$/.test(c) && existsSync(c) && statSync(c).isFile());
}

/** Every import circle among `modules` (each once, from its first module in file order), as "a → b → a". */
function circles(modules: Map<string, string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (m: string) => {
    state.set(m, "open");
    path.push(m);
    for (const next of modules.get(m) ?? []) {
      if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next].join(" → "));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(m, "done");
  };
  for (const m of modules.keys()) if (!state.has(m)) visit(m);
  return found;
}

/**
 * What of src/ the web app may bundle (ARCHITECTURE.md, dashboard): the codec with its hashing
 * and bech32 (and the util module the codec's errors use), the conflict reason codes, and the
 * API's wire definitions in api/json/ (answer types, the media type, the event topics), which
 * import nothing at run time. Anything else of src/ it may import as types only, and only from
 * these too: a type import of a route module would make web/tsconfig.json check the server.
 */
const WEB_FROM_SRC = ["src/codec/", "src/crypto/", "src/util/", "src/ledger/conflictReason.ts", "src/api/json/"];
const WIRE_DEFINITIONS = "src/api/json/";

const posix = (path: string) => relative(".", path).split(/[\\/]/).join("/");
const allowedFromWeb = (file: string) => WEB_FROM_SRC.some((p) => posix(file).startsWith(p));

describe("the web app's imports", () => {
  const webFiles = files("web/src", /\.tsx?$/);

  it("has no import circle in web/src (type imports included)", () => {
    const graph = new Map<string, string[]>();
    for (const file of webFiles) {
      const targets = importsOf(readFileSync(file, "utf8"))
        .map((i) => resolveImport(file, i.specifier))
        .filter((t): t is string => t !== undefined && posix(t).startsWith("web/src/"));
      graph.set(posix(file), targets.map(posix));
    }
    assert.deepEqual(circles(graph), []);
  });

  it("imports from src/ only the codec, bech32, conflict reasons and the API's wire definitions", () => {
    const violations: string[] = [];
    // the src/ modules the bundle carries, followed through their own run-time imports
    const bundled = new Set<string>();
    const follow = (file: string, by: string) => {
      const path = posix(file);
      if (!allowedFromWeb(file)) violations.push(`${by} brings ${path} into the bundle`);
      if (bundled.has(path)) return;
      bundled.add(path);
      for (const i of importsOf(readFileSync(file, "utf8"))) {
        const target = resolveImport(file, i.specifier);
        if (!i.typeOnly && target !== undefined) follow(target, path);
        else if (!i.typeOnly && path.startsWith(WIRE_DEFINITIONS))
          violations.push(`${path} imports ${i.specifier} at run time (the wire definitions are dependency-free)`);
      }
    };
    for (const file of webFiles) {
      for (const i of importsOf(readFileSync(file, "utf8"))) {
        const target = resolveImport(file, i.specifier);
        if (target === undefined || !posix(target).startsWith("src/")) continue;
        if (!allowedFromWeb(target)) violations.push(`${posix(file)} imports ${posix(target)}`);
        else if (!i.typeOnly) follow(target, posix(file));
      }
    }
    // the wire definitions import nothing at run time, whoever imports them
    for (const file of files(WIRE_DEFINITIONS)) {
      for (const i of importsOf(readFileSync(file, "utf8"))) {
        if (!i.typeOnly) violations.push(`${posix(file)} imports ${i.specifier} at run time`);
      }
    }
    // scripts/build-web.mjs rebuilds the bundle when its inputs change: every bundled file is one
    const inputs = [...readFileSync("scripts/build-web.mjs", "utf8").matchAll(/const INPUTS = \[([^\]]*)\]/g)]
      .flatMap((m) => m[1]!.split(","))
      .map((x) => x.trim().replace(/^"|"$/g, ""));
    for (const path of bundled) {
      if (!inputs.some((input) => path === input || path.startsWith(`${input}/`)))
        violations.push(`${path} is bundled but not among scripts/build-web.mjs's INPUTS`);
    }
    assert.ok(bundled.size > 0, "the web app bundles the codec: the imports were not read");
    assert.deepEqual([...new Set(violations)], []);
  });
});
