import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { MALLOC_ENV, mallocEnvApplied, onGlibc, withMallocEnv } from "../../../src/cli/mallocEnv.js";
import { NodeProcess } from "../../helpers/nodeProcess.js";

/** The environment `npm start`'s command line gives the node: its build step left out, the node replaced by a print of its env. */
function startEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const start = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { start: string } }).scripts.start;
  const prefix = "npm run build --silent && ";
  assert.ok(start.startsWith(prefix) && start.endsWith(" node dist/src/cli/main.js"), start);
  const command = start
    .slice(prefix.length)
    .replace(" node dist/src/cli/main.js", ` "${process.execPath}" -p "JSON.stringify(process.env)"`);
  const r = spawnSync("/bin/sh", ["-c", command], { env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Record<string, string>;
}

const without = (env: NodeJS.ProcessEnv) => {
  const copy = { ...env };
  for (const name of Object.keys(MALLOC_ENV)) delete copy[name];
  return copy;
};

describe("the malloc settings the node is launched with", () => {
  it("npm start sets each of them, and leaves one the operator set", () => {
    const env = startEnv(without(process.env));
    for (const [name, value] of Object.entries(MALLOC_ENV)) assert.equal(env[name], value, name);
    assert.equal(startEnv({ ...without(process.env), MALLOC_ARENA_MAX: "4" }).MALLOC_ARENA_MAX, "4");
  });

  it("withMallocEnv adds what is missing and keeps what is set", () => {
    const env = withMallocEnv({ PATH: "/bin", MALLOC_ARENA_MAX: "8" });
    assert.equal(env.PATH, "/bin");
    assert.equal(env.MALLOC_ARENA_MAX, "8");
    assert.equal(env.MALLOC_MMAP_THRESHOLD_, MALLOC_ENV.MALLOC_MMAP_THRESHOLD_);
    assert.ok(mallocEnvApplied(env));
    assert.ok(!mallocEnvApplied({ MALLOC_ARENA_MAX: "2" }));
  });

  it("a node launched without them says so once at start, with what to set; with them it says nothing", async (t) => {
    if (!onGlibc()) return t.skip("the settings are glibc's");
    const node = await NodeProcess.create("malloc-env");
    t.after(() => node.dispose());
    const warning = "started without the malloc settings npm start gives";
    node.start([], { unsetEnv: ["MALLOC_ARENA_MAX"] });
    await node.waitHealthy();
    const lines = node.output.split("\n").filter((l) => l.includes(warning));
    assert.equal(lines.length, 1, node.output);
    const line = JSON.parse(lines[0]!) as { level: number; missing: string[]; msg: string };
    assert.deepEqual(line.missing, ["MALLOC_ARENA_MAX"]);
    assert.match(line.msg, /MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072/);
    await node.stop();
    node.start();
    await node.waitHealthy();
    assert.ok(!node.output.includes(warning), node.output);
  });
});
