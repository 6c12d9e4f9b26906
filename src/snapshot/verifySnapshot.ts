import { encodeBlock } from "../codec/block.js";
import { bytesEqual, toHex } from "../codec/hex.js";
import { blockIdFromBytes, computeMilestoneId } from "../codec/ids.js";
import type { MilestonePayload, ProtocolParameters } from "../codec/types.js";
import { ed25519Verify } from "../crypto/ed25519.js";
import type { TreasuryRecord } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { type SnapshotError, SnapshotErrorCode } from "./errors.js";
import { readChecksumFile, readSnapshot } from "./fileReader.js";
import { amountOfOutputBytes, type DeltaSnapshotHeader, type FullSnapshotHeader, SnapshotType } from "./format.js";
import { applyReceiptToTreasury, checkDiffBalance, rollBackReceiptFromTreasury } from "./treasury.js";

/**
 * The checks a snapshot file must pass before anything of it is written to a database (the
 * importer's first pass). The format carries no checksum, so beyond the structure the reader
 * checks, the content is checked for what must hold in any real ledger: a `<file>.sha256`
 * beside the file matches; the outputs add up to the token supply; each milestone diff keeps
 * the total (a receipt's diff by what it migrates, and the treasury it spends is the treasury of
 * that moment: `treasury.ts`); each milestone payload is signed by the keys it names and chains
 * to the one before by its previous milestone ID; the header's target milestone ID and timestamp
 * agree with the target milestone's payload; the diffs are the ones the header's indexes call
 * for; a delta builds on the full snapshot's target. The signatures prove integrity, not
 * authority: which keys a network's coordinator uses is not in the file. When the node knows
 * them (`coordinator`: the network file it follows), each milestone must also carry the
 * threshold of their signatures, so a file of another network of the same name is refused.
 *
 * `unverified` (the node's `--snapshot-unverified`) skips the signatures and the chaining of
 * the milestones, for files whose milestones are placeholders, as Hornet's own test snapshots
 * (`tools/intsnap`) are: everything else is still checked.
 */

export interface VerifySnapshotOptions {
  /** Accept milestones without valid signatures or previous milestone IDs. */
  unverified?: boolean;
  /** The network's coordinator keys and how many of them sign a milestone, when known. */
  coordinator?: { publicKeys: readonly Uint8Array[]; threshold: number };
  onProgress?: (p: ProgressReport) => void;
}

export interface ProgressReport {
  bytesRead: number;
  fileSize: number;
}

/** A milestone of the file, summarised for the import pass. */
export interface VerifiedMilestone {
  index: number;
  milestoneId: Uint8Array;
  timestamp: number;
  /** The block that carried it, rebuilt as payload on its parents with nonce 0. */
  blockBytes: Uint8Array;
  blockId: Uint8Array;
  parents: Uint8Array[];
}

export interface VerifiedFull {
  header: FullSnapshotHeader;
  /** The treasury output at the target (the header's, with the receipts above the target rolled back). */
  treasury: TreasuryRecord;
  protocolParameters: ProtocolParameters;
  outputCount: number;
  solidEntryPoints: Uint8Array[];
  /** The target milestone, when the file carries its payload (an extra diff at the target index). */
  targetMilestone?: VerifiedMilestone;
  /** Parents of the milestone after the target, when the file rolls back through it. */
  successorParents?: Uint8Array[];
  sha256: string;
}

export interface VerifiedDelta {
  header: DeltaSnapshotHeader;
  /** The delta's milestones, oldest first. */
  milestones: VerifiedMilestone[];
  /** The treasury output at the delta's target (the full snapshot's, moved by the delta's receipts). */
  treasury: TreasuryRecord;
  solidEntryPoints: Uint8Array[];
  sha256: string;
}

function corrupted(reason: string): SnapshotError {
  return new LedgerNodeError(SnapshotErrorCode.Corrupted, reason);
}

/** The block a coordinator issues for a milestone: the payload on its own parents, nonce 0 (TIP-29). */
export function milestoneBlockBytes(milestone: MilestonePayload): Uint8Array {
  return encodeBlock({
    protocolVersion: milestone.protocolVersion,
    parents: milestone.parents,
    payload: milestone,
    nonce: 0n,
  });
}

/**
 * Checks a milestone payload on its own (its signatures unless `unverified`, and that the
 * network's coordinator signed it when `coordinator` is known) and returns its summary.
 */
function verifyMilestone(
  m: MilestonePayload,
  field: string,
  { unverified = false, coordinator }: VerifySnapshotOptions,
): VerifiedMilestone {
  const milestoneId = computeMilestoneId(m);
  if (!unverified) {
    for (const [i, s] of m.signatures.entries()) {
      if (!ed25519Verify(s.publicKey, milestoneId, s.signature)) {
        throw new LedgerNodeError(
          SnapshotErrorCode.Unverified,
          `${field}: signature ${i} of milestone ${m.index} does not verify`,
        );
      }
    }
    // the signatures verified, each by a distinct key (TIP-29): count those of the network's keys
    const byCoordinator = coordinator
      ? m.signatures.filter((s) => coordinator.publicKeys.some((k) => bytesEqual(k, s.publicKey))).length
      : 0;
    if (coordinator && byCoordinator < coordinator.threshold) {
      throw new LedgerNodeError(
        SnapshotErrorCode.WrongNetwork,
        `${field}: milestone ${m.index} carries ${byCoordinator} signatures of the network's coordinator keys, it needs ${coordinator.threshold}: the file is of another network`,
      );
    }
  }
  const blockBytes = milestoneBlockBytes(m);
  return {
    index: m.index,
    milestoneId,
    timestamp: m.timestamp,
    blockBytes,
    blockId: blockIdFromBytes(blockBytes),
    parents: m.parents,
  };
}

async function checkChecksum(path: string, sha256: string): Promise<void> {
  const expected = await readChecksumFile(path);
  if (expected !== undefined && expected !== sha256) {
    throw corrupted(`${path} does not match its checksum file: SHA-256 ${sha256}, expected ${expected}`);
  }
}

/** Reads and checks a full snapshot file without writing anything. */
export async function verifyFullSnapshot(
  path: string,
  expectedNetworkName: string,
  options: VerifySnapshotOptions = {},
): Promise<VerifiedFull> {
  const { onProgress, unverified = false } = options;
  let header!: FullSnapshotHeader;
  let treasury!: TreasuryRecord;
  let total = 0n;
  let outputCount = 0;
  const seps: Uint8Array[] = [];
  let targetMilestone: VerifiedMilestone | undefined;
  let successorParents: Uint8Array[] | undefined;
  /** Index and previous milestone ID of the diff read last (diffs run newest first). */
  let newer: { index: number; previousMilestoneId: Uint8Array } | undefined;
  const result = await readSnapshot(
    path,
    {
      header(h) {
        header = h as FullSnapshotHeader;
        treasury = { milestoneId: header.treasuryOutputMilestoneId, amount: header.treasuryOutputAmount };
        const name = header.protocolParameters.parameters.networkName;
        if (name !== expectedNetworkName) {
          throw new LedgerNodeError(
            SnapshotErrorCode.WrongNetwork,
            `${path} is a snapshot of network "${name}", this node runs "${expectedNetworkName}"`,
          );
        }
        if (header.genesisMilestoneIndex > header.targetMilestoneIndex) {
          throw corrupted(
            `genesis milestone index ${header.genesisMilestoneIndex} is above the target index ${header.targetMilestoneIndex}`,
          );
        }
        if (header.protocolParameters.option.targetMilestoneIndex > header.ledgerMilestoneIndex) {
          throw corrupted(
            `the protocol parameters take effect at ${header.protocolParameters.option.targetMilestoneIndex}, after the ledger index ${header.ledgerMilestoneIndex}`,
          );
        }
        if (header.ledgerMilestoneIndex < header.targetMilestoneIndex) {
          throw corrupted(
            `ledger milestone index ${header.ledgerMilestoneIndex} is below the target index ${header.targetMilestoneIndex}`,
          );
        }
        const rollback = header.ledgerMilestoneIndex - header.targetMilestoneIndex;
        if (header.milestoneDiffCount < rollback) {
          throw corrupted(
            `${header.milestoneDiffCount} milestone diffs cannot roll the ledger back ${rollback} milestones`,
          );
        }
      },
      output(o, i) {
        if (o.bookedIndex > header.ledgerMilestoneIndex) {
          throw corrupted(
            `outputs[${i}] is booked at ${o.bookedIndex}, after the ledger index ${header.ledgerMilestoneIndex}`,
          );
        }
        total += amountOfOutputBytes(o.outputBytes);
        outputCount++;
      },
      diff(d, i) {
        const field = `milestoneDiffs[${i}]`;
        const index = d.milestone.index;
        // the ledger index down to the target + 1, each once; then optional extra diffs, descending
        const rollback = header.ledgerMilestoneIndex - i;
        const inOrder =
          rollback > header.targetMilestoneIndex
            ? index === rollback
            : index <= header.targetMilestoneIndex && (newer === undefined || index < newer.index);
        if (!inOrder) throw corrupted(`${field} is milestone ${index}, out of order`);
        checkDiffBalance(d, field);
        const m = verifyMilestone(d.milestone, field, options);
        if (index > header.targetMilestoneIndex) {
          treasury = rollBackReceiptFromTreasury(treasury, d, m.milestoneId, field);
        }
        const follows = newer?.index !== index + 1 || bytesEqual(newer.previousMilestoneId, m.milestoneId);
        if (!unverified && !follows) {
          throw corrupted(`${field}: milestone ${index + 1} does not follow milestone ${index}`);
        }
        if (index === header.targetMilestoneIndex + 1) {
          if (!unverified && !bytesEqual(d.milestone.previousMilestoneId, header.targetMilestoneId)) {
            throw corrupted(`${field}: milestone ${index} does not follow the header's target milestone`);
          }
          successorParents = d.milestone.parents;
        }
        if (index === header.targetMilestoneIndex) {
          const idMatches = unverified || bytesEqual(m.milestoneId, header.targetMilestoneId);
          if (!idMatches || m.timestamp !== header.targetMilestoneTimestamp) {
            throw corrupted(
              `${field}: milestone ${index} does not match the header's target milestone ID and timestamp`,
            );
          }
          targetMilestone = m;
        }
        newer = { index, previousMilestoneId: d.milestone.previousMilestoneId };
      },
      sep(id) {
        seps.push(id);
      },
    },
    { expectedType: SnapshotType.Full, onProgress: (bytesRead, fileSize) => onProgress?.({ bytesRead, fileSize }) },
  );
  // the treasury (TIP-34) holds the part of the supply the outputs do not
  const supply = header.protocolParameters.parameters.tokenSupply;
  if (total + header.treasuryOutputAmount !== supply) {
    throw corrupted(
      `the outputs hold ${total} and the treasury ${header.treasuryOutputAmount}, the token supply is ${supply}`,
    );
  }
  if (seps.length === 0) throw corrupted("the snapshot has no solid entry points to attach new blocks to");
  await checkChecksum(path, result.sha256);
  return {
    header,
    treasury,
    protocolParameters: header.protocolParameters.parameters,
    outputCount,
    solidEntryPoints: seps,
    ...(targetMilestone ? { targetMilestone } : {}),
    ...(successorParents ? { successorParents } : {}),
    sha256: result.sha256,
  };
}

/** Reads and checks a delta snapshot file against the full snapshot it builds on. */
export async function verifyDeltaSnapshot(
  path: string,
  verifiedFull: Pick<VerifiedFull, "header" | "treasury">,
  options: VerifySnapshotOptions = {},
): Promise<VerifiedDelta> {
  const { onProgress, unverified = false } = options;
  const full = verifiedFull.header;
  let treasury = verifiedFull.treasury;
  let header!: DeltaSnapshotHeader;
  const milestones: VerifiedMilestone[] = [];
  const seps: Uint8Array[] = [];
  let previousId = full.targetMilestoneId;
  const result = await readSnapshot(
    path,
    {
      header(h) {
        header = h as DeltaSnapshotHeader;
        if (!bytesEqual(header.fullSnapshotTargetMilestoneId, full.targetMilestoneId)) {
          throw new LedgerNodeError(
            SnapshotErrorCode.NotMergeable,
            `${path} builds on milestone ${toHex(header.fullSnapshotTargetMilestoneId)}, the full snapshot's target is ${toHex(full.targetMilestoneId)}`,
          );
        }
        if (header.targetMilestoneIndex <= full.targetMilestoneIndex) {
          throw new LedgerNodeError(
            SnapshotErrorCode.NotMergeable,
            `the delta's target ${header.targetMilestoneIndex} is not above the full snapshot's ${full.targetMilestoneIndex}`,
          );
        }
        if (header.milestoneDiffCount !== header.targetMilestoneIndex - full.targetMilestoneIndex) {
          throw corrupted(
            `${header.milestoneDiffCount} milestone diffs cannot lead from ${full.targetMilestoneIndex} to ${header.targetMilestoneIndex}`,
          );
        }
      },
      diff(d, i) {
        const field = `milestoneDiffs[${i}]`;
        const index = d.milestone.index;
        if (index !== full.targetMilestoneIndex + 1 + i)
          throw corrupted(`${field} is milestone ${index}, out of order`);
        checkDiffBalance(d, field);
        const m = verifyMilestone(d.milestone, field, options);
        treasury = applyReceiptToTreasury(treasury, d, m.milestoneId, field);
        if (!unverified && !bytesEqual(d.milestone.previousMilestoneId, previousId)) {
          throw corrupted(`${field}: milestone ${index} does not follow milestone ${index - 1}`);
        }
        previousId = m.milestoneId;
        milestones.push(m);
      },
      sep(id) {
        seps.push(id);
      },
    },
    { expectedType: SnapshotType.Delta, onProgress: (bytesRead, fileSize) => onProgress?.({ bytesRead, fileSize }) },
  );
  const last = milestones[milestones.length - 1];
  if (last && last.timestamp !== header.targetMilestoneTimestamp) {
    throw corrupted(
      `the header's target timestamp ${header.targetMilestoneTimestamp} is not milestone ${last.index}'s`,
    );
  }
  if (seps.length === 0) throw corrupted("the snapshot has no solid entry points to attach new blocks to");
  await checkChecksum(path, result.sha256);
  return { header, milestones, treasury, solidEntryPoints: seps, sha256: result.sha256 };
}
