import { Card } from "../components";
import { useTitle } from "../hooks";
import { href } from "../paths";

/** Any dashboard URL no page answers. */
export function NotFound() {
  useTitle("Not found");
  return (
    <>
      <h1>Page not found</h1>
      <Card title="Nothing here">
        <p>
          The dashboard has no page at <code>{window.location.pathname}</code>. Go to the{" "}
          <a href={href("/")}>home page</a>.
        </p>
      </Card>
    </>
  );
}
