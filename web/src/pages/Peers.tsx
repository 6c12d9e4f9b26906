import { Card } from "../components";
import { useTitle } from "../hooks";

/** The node's peers (protected: needs a JWT). */
export function Peers() {
  useTitle("Peers");
  return (
    <>
      <h1>Peers</h1>
      <Card title="Peers">
        <p>The node's connected, static and banned peers.</p>
      </Card>
    </>
  );
}
