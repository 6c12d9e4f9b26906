import { Card, Stats } from "../components";
import { formatNumber, shortHex } from "../format";
import { payloadKindName } from "../kindNames";
import type { TangleNode } from "./model";
import { blockHref, stateWords } from "./words";

/** The block picked in the graph or the list: its fields in words, a link to its explorer page and to its parents'. */
export function SelectedBlock({ node }: { node: TangleNode }) {
  return (
    <Card title="Selected block" id="selected-block">
      <p data-selected={node.id}>
        <a href={blockHref(node.id)}>Open block {shortHex(node.id)} in the explorer</a>
      </p>
      <Stats
        items={[
          ["Block ID", <code key="id">{node.id}</code>, "selected-id"],
          ["State", stateWords(node), "selected-state"],
          ["Payload", payloadKindName(node.payloadType), "selected-payload"],
          [
            "Referenced by milestone",
            node.referencedBy === undefined
              ? "not yet"
              : node.referencedAtLatest
                ? `${formatNumber(node.referencedBy)} or an earlier one (seen through a block that approves it)`
                : formatNumber(node.referencedBy),
            "selected-referenced-by",
          ],
          ["Parents", String(node.parents.length), "selected-parents"],
        ]}
      />
      <ul class="latest-blocks" aria-label="Parents of the selected block">
        {node.parents.map((p) => (
          <li key={p}>
            <a href={blockHref(p)} class="mono">
              parent {shortHex(p)}
            </a>
          </li>
        ))}
      </ul>
    </Card>
  );
}
