/**
 * LevelDB's own work, as its `leveldb.stats` property reports it: per level, the tables held and
 * the flushes (level 0) or compactions (the levels above) that wrote into it since the database
 * was opened. Compaction runs on LevelDB's one background thread; on a busy node it takes as
 * much CPU as a third of the main thread (docs/performance.md, "Where the two cores go").
 */

export interface LevelStats {
  level: number;
  files: number;
  sizeBytes: number;
  /** Time spent writing into this level: flushing the memtable (level 0) or compacting. */
  seconds: number;
  readBytes: number;
  writtenBytes: number;
}

/** The totals over every level: time, bytes read and bytes written by flushes and compactions. */
export interface LevelWork {
  seconds: number;
  readBytes: number;
  writtenBytes: number;
  /** Of `writtenBytes`, what flushes wrote (the data itself, once, into level 0). */
  flushedBytes: number;
}

const MB = 1_048_576;

/**
 * Parses the table of `leveldb.stats` (a header, a rule, then one row per non-empty level:
 * `Level Files Size(MB) Time(sec) Read(MB) Write(MB)`); rows that do not parse are skipped.
 */
export function parseLevelStats(text: string): LevelStats[] {
  const levels: LevelStats[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/).map(Number);
    if (f.length !== 6 || f.some((v) => !Number.isFinite(v))) continue;
    const [level, files, size, seconds, read, written] = f as [number, number, number, number, number, number];
    levels.push({ level, files, sizeBytes: size * MB, seconds, readBytes: read * MB, writtenBytes: written * MB });
  }
  return levels;
}

/** The totals of `levels`. */
export function levelWork(levels: readonly LevelStats[]): LevelWork {
  const work = { seconds: 0, readBytes: 0, writtenBytes: 0, flushedBytes: 0 };
  for (const l of levels) {
    work.seconds += l.seconds;
    work.readBytes += l.readBytes;
    work.writtenBytes += l.writtenBytes;
    if (l.level === 0) work.flushedBytes += l.writtenBytes;
  }
  return work;
}
