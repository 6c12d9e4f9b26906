import { Card } from "../components";
import { shortHex } from "../format";
import { payloadKindName } from "../kindNames";
import type { TangleNode } from "./model";
import { blockHref, stateWords } from "./words";

/** The newest blocks drawn, newest first, each a link to its explorer page and a button that selects it. */
export function NewestBlocks({ blocks, onSelect }: { blocks: TangleNode[]; onSelect: (node: TangleNode) => void }) {
  return (
    <Card title="Newest blocks" id="newest-blocks">
      {blocks.length === 0 ? (
        <p class="muted">No block since the page opened; new ones appear here and in the graph.</p>
      ) : (
        <ol class="latest-blocks" aria-label="Newest blocks drawn, newest first">
          {blocks.map((n) => (
            <li key={n.id} data-block-id={n.id} data-state={n.state}>
              <a href={blockHref(n.id)} class="mono">
                {shortHex(n.id)}
              </a>
              <span class="state-word">{stateWords(n)}</span>
              <span class="muted">{payloadKindName(n.payloadType)}</span>
              <button type="button" class="secondary" onClick={() => onSelect(n)}>
                Select<span class="visually-hidden"> block {shortHex(n.id)}</span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
