import type { NodeEvents } from "./events.js";

/**
 * The confirmed milestones in the operator's log at a rate a person reads. Hornet logs every
 * confirmed milestone at info, one every 10 s on its networks; this node's dev coordinator issues
 * one a second, so info gets one line at most every `everyMs` (the first milestone confirmed
 * after the start at once) with the milestones and blocks since the previous line and their
 * rate, and debug gets a line per milestone.
 */

/** What the milestone lines are written to (pino's, fastify's logger). */
export interface MilestoneLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

/** Least time between two info lines of confirmed milestones. */
export const MILESTONE_LOG_EVERY_MS = 10_000;

/**
 * Subscribes to `milestoneConfirmed` and writes the lines; returns the unsubscription. `now`
 * is the clock (tests set it).
 */
export function logConfirmedMilestones(
  events: NodeEvents,
  log: MilestoneLogger,
  everyMs = MILESTONE_LOG_EVERY_MS,
  now: () => number = Date.now,
): () => void {
  let lastLineAt: number | undefined;
  let milestones = 0;
  let referenced = 0;
  return events.on("milestoneConfirmed", ({ milestone, result }) => {
    const blocks = result.referenced.length;
    log.debug({ index: milestone.index, referencedBlocks: blocks }, `milestone ${milestone.index} confirmed`);
    milestones++;
    referenced += blocks;
    const at = now();
    if (lastLineAt !== undefined && at - lastLineAt < everyMs) return;
    if (lastLineAt === undefined) {
      log.info({ index: milestone.index, referencedBlocks: blocks }, `milestone ${milestone.index} confirmed`);
    } else {
      const seconds = (at - lastLineAt) / 1000;
      const perSecond = milestones / seconds;
      log.info(
        { index: milestone.index, milestones, seconds, milestonesPerSecond: perSecond, referencedBlocks: referenced },
        `milestone ${milestone.index} confirmed: ${milestones} milestones in ${seconds.toFixed(1)} s (${perSecond.toFixed(2)}/s), ${referenced} blocks referenced`,
      );
    }
    lastLineAt = at;
    milestones = 0;
    referenced = 0;
  });
}
