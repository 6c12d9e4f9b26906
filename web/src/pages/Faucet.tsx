import { Card } from "../components";
import { useTitle } from "../hooks";

/** The faucet of the node's network, when it runs one. */
export function Faucet() {
  useTitle("Faucet");
  return (
    <>
      <h1>Faucet</h1>
      <Card title="Faucet">
        <p>Tokens for an address of this network.</p>
      </Card>
    </>
  );
}
