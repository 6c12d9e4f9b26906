import { formatNumber } from "../format";

/** Pause and Resume, and what the drawing does now: redrawn every so often, or standing still while blocks arrive. */
export function PauseToolbar({
  paused,
  windowSize,
  arrivedSincePause,
  redrawEveryMs,
  onToggle,
}: {
  paused: boolean;
  /** Blocks kept and drawn at most. */
  windowSize: number;
  arrivedSincePause: number;
  redrawEveryMs: number;
  onToggle: () => void;
}) {
  return (
    <div class="toolbar">
      <button type="button" aria-pressed={paused} onClick={onToggle}>
        {paused ? "Resume" : "Pause"}
      </button>
      <output class="muted" data-paused={String(paused)}>
        {paused
          ? `Paused: the drawing stands still; ${formatNumber(arrivedSincePause)} blocks arrived since.`
          : `Live: the last ${formatNumber(windowSize)} blocks at most, redrawn every ${formatNumber(redrawEveryMs / 1000, 2)} s.`}
      </output>
    </div>
  );
}
