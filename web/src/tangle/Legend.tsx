import { STATE_COLOURS } from "./graph";
import { STATES } from "./model";

/** What the graph's colours and lines mean, in words. */
export function Legend() {
  return (
    <ul class="tangle-legend" id="tangle-legend" aria-label="Legend">
      {STATES.map((s) => (
        <li key={s.state} title={s.description}>
          <span class={`dot ${s.state}`} style={{ background: STATE_COLOURS[s.state] }} aria-hidden="true" />
          <strong>{s.label}</strong>: {s.description}
        </li>
      ))}
      <li>lines: from a block to each of its parents</li>
    </ul>
  );
}
