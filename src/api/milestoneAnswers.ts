import type { MilestoneInfo } from "../tangle/events.js";

/**
 * Answer texts of a read route that stay the same while the ledger stays at one milestone
 * (docs/performance.md, Reads over HTTP): a wallet or an explorer polls the same output many
 * times between two milestones, and each answer is otherwise read, decoded and written as JSON
 * again. An answer is kept for the latest milestone it was made at and served only while that
 * milestone is still the latest (the tangle puts a new `MilestoneInfo` in place at every move);
 * pruning and a revert clear everything (they change what an answer shows without a new
 * milestone: api/server.ts clears them on those events). Bounded by entries and characters
 * (keys and answers); the oldest answer goes first. One instance serves the routes that keep
 * answers, each with keys of its own form (an output ID, a path with its query).
 */
export class MilestoneAnswers {
  private readonly answers = new Map<string, string>();
  private chars = 0;
  private milestone: MilestoneInfo | undefined;

  constructor(
    private readonly maxEntries = 1024,
    private readonly maxChars = 4 * 1024 * 1024,
  ) {}

  /** The answer kept for `key` at `milestone` (the tangle's latest), if any. */
  get(milestone: MilestoneInfo, key: string): string | undefined {
    if (milestone !== this.milestone) {
      this.clear();
      this.milestone = milestone;
      return undefined;
    }
    return this.answers.get(key);
  }

  /** Keeps `answer`, made at `milestone`, for `key`; an answer of an older milestone is not kept. */
  set(milestone: MilestoneInfo, key: string, answer: string): void {
    // a key is the client's text (a path and query) and counts as much as an answer
    const chars = key.length + answer.length;
    if (milestone !== this.milestone || chars > this.maxChars / 16 || this.answers.has(key)) return;
    while (this.answers.size >= this.maxEntries || this.chars + chars > this.maxChars) {
      const [oldest, text] = this.answers.entries().next().value!;
      this.answers.delete(oldest);
      this.chars -= oldest.length + text.length;
    }
    this.answers.set(key, answer);
    this.chars += chars;
  }

  clear(): void {
    this.answers.clear();
    this.chars = 0;
  }

  get size(): number {
    return this.answers.size;
  }
}
