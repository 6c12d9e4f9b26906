import { render } from "preact";
import { App, Failed } from "./app";
import "./styles.css";

/** The dashboard's entry: renders the app into `#app` (index.html), or a failure in words. */
const root = document.getElementById("app")!;
// the "Loading…" text index.html shows until the script runs
root.replaceChildren();
try {
  render(<App />, root);
} catch (e) {
  render(<Failed message={(e as Error).message} />, root);
}
