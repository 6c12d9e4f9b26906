import { existsSync } from "node:fs";
import { ClassicLevel } from "classic-level";

/**
 * Storage that fails its writes on cue, for machines where a test cannot mount a small tmpfs:
 * loaded into the node process with `node --import`, it makes every LevelDB write fail as a full
 * disk does ("IO error: … No space left on device") while the file named by
 * LEDGER_NODE_TEST_FAIL_WRITES_WHEN exists. Reads are untouched. Test-only: nothing in src/
 * knows of it.
 */
const cue = process.env.LEDGER_NODE_TEST_FAIL_WRITES_WHEN;
if (cue) {
  const noSpace = () =>
    Promise.reject(Object.assign(new Error("IO error: (on cue): No space left on device"), { code: "LEVEL_IO_ERROR" }));
  // biome-ignore lint/suspicious/noExplicitAny: patching the library's prototype, typed loosely on purpose
  const proto = ClassicLevel.prototype as any;
  const batch = proto.batch;
  proto.batch = function (this: unknown, ...args: unknown[]) {
    const chained = batch.apply(this, args);
    if (args.length > 0) return existsSync(cue) ? noSpace() : chained;
    const write = chained.write;
    chained.write = function (this: unknown, ...w: unknown[]) {
      if (existsSync(cue)) {
        void chained.close();
        return noSpace();
      }
      return write.apply(this, w);
    };
    return chained;
  };
  const put = proto.put;
  proto.put = function (this: unknown, ...args: unknown[]) {
    return existsSync(cue) ? noSpace() : put.apply(this, args);
  };
}
