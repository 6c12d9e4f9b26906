import { existsSync } from "node:fs";
import { ClassicLevel } from "classic-level";

/**
 * Storage that fails its writes on cue, for machines where a test cannot mount a small tmpfs:
 * loaded into the node process with `node --import`, it makes every LevelDB write fail as a full
 * disk does ("IO error: … No space left on device") while the file named by
 * LEDGER_NODE_TEST_FAIL_WRITES_WHEN exists; with LEDGER_NODE_TEST_FAIL_SYNC_WRITES_ONLY set, only
 * the writes that wait for the disk (a milestone's batch) fail. Reads are untouched. Test-only:
 * nothing in src/ knows of it.
 */
const cue = process.env.LEDGER_NODE_TEST_FAIL_WRITES_WHEN;
const syncOnly = process.env.LEDGER_NODE_TEST_FAIL_SYNC_WRITES_ONLY !== undefined;
const failing = (options?: { sync?: boolean }) => existsSync(cue!) && (!syncOnly || options?.sync === true);
if (cue) {
  const noSpace = () =>
    Promise.reject(Object.assign(new Error("IO error: (on cue): No space left on device"), { code: "LEVEL_IO_ERROR" }));
  // biome-ignore lint/suspicious/noExplicitAny: patching the library's prototype, typed loosely on purpose
  const proto = ClassicLevel.prototype as any;
  const batch = proto.batch;
  proto.batch = function (this: unknown, ...args: unknown[]) {
    const chained = batch.apply(this, args);
    if (args.length > 0) return failing(args[1] as { sync?: boolean }) ? noSpace() : chained;
    const write = chained.write;
    chained.write = function (this: unknown, ...w: unknown[]) {
      if (failing(w[0] as { sync?: boolean })) {
        void chained.close();
        return noSpace();
      }
      return write.apply(this, w);
    };
    return chained;
  };
  const put = proto.put;
  proto.put = function (this: unknown, ...args: unknown[]) {
    return failing(args[2] as { sync?: boolean }) ? noSpace() : put.apply(this, args);
  };
}
