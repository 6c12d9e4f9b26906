import { Card } from "../components";
import { useTitle } from "../hooks";

/** Placeholder of the explorer (search, blocks, outputs, addresses, milestones): replaced by its own pages. */
export function Explorer({ rest }: { rest?: string }) {
  useTitle("Explorer");
  return (
    <>
      <h1>Explorer</h1>
      <Card title="Coming here">
        <p>
          Search blocks, transactions, outputs, addresses and milestones.
          {rest ? ` (${rest})` : ""}
        </p>
      </Card>
    </>
  );
}
