/** Snapshot settings of a node. */
export interface SnapshotOptions {
  /** Directory the snapshot files are written to (the node puts it in its data directory). */
  directory: string;
  /** Take a full snapshot automatically every this many milestones; 0 turns it off. */
  interval: number;
  /** Automatic snapshots keep this many of their own full snapshot files, removing older ones (manager.ts). */
  keepFull: number;
}

export const defaultSnapshotOptions: SnapshotOptions = { directory: "snapshots", interval: 0, keepFull: 2 };

/** File names in the snapshot directory: `full_snapshot_<index>.bin`, `delta_snapshot_<index>.bin`. */
export const fullSnapshotName = (index: number): string => `full_snapshot_${index}.bin`;
export const deltaSnapshotName = (index: number): string => `delta_snapshot_${index}.bin`;
export const FULL_SNAPSHOT_NAME = /^full_snapshot_(\d+)\.bin$/;
export const DELTA_SNAPSHOT_NAME = /^delta_snapshot_(\d+)\.bin$/;
