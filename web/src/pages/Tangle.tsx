import { Card } from "../components";
import { useTitle } from "../hooks";

/** Placeholder of the live tangle view: replaced by its own page. */
export function Tangle() {
  useTitle("Live tangle");
  return (
    <>
      <h1>Live tangle</h1>
      <Card title="Coming here">
        <p>The blocks of the tangle as they arrive and are referenced by milestones.</p>
      </Card>
    </>
  );
}
