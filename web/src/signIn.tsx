import type { VNode } from "preact";
import { useState } from "preact/hooks";
import { JWT_SHAPE, useToken } from "./auth";
import { ActionForm, Card, TextField } from "./components";
import { useAction } from "./hooks";

/**
 * The sign-in card of a page over protected routes: a JWT pasted by the user, kept (auth.ts)
 * only once `check` (a call of the page's own protected route) shows the node takes it.
 */
export function SignIn({
  routes,
  check,
  onToken,
}: {
  /** What is protected, for the text ("The peer routes"). */
  routes: string;
  check: (token: string) => Promise<unknown>;
  onToken: (token: string) => void;
}) {
  const [value, setValue] = useState("");
  const signIn = useAction("The node refused the token");
  const submit = () => {
    const token = value.trim();
    if (!JWT_SHAPE.test(token))
      return signIn.refuse("That is not a JWT: it has three parts of letters, digits, - and _ separated by dots.");
    return signIn.run(async () => {
      await check(token);
      onToken(token);
    });
  };
  return (
    <Card title="Sign in" id="sign-in">
      <p>
        {routes} are protected. Paste a token of this node, printed by{" "}
        <code>npm run jwt -- --data-dir &lt;dir&gt;</code>. It is kept for this browser tab only.
      </p>
      <ActionForm action={signIn} onSubmit={submit} label="Sign in" busyLabel="Checking…">
        <TextField id="jwt" label="JWT" type="password" value={value} onValue={setValue} spellcheck={false} required />
      </ActionForm>
    </Card>
  );
}

/**
 * A page over protected routes: its content once a token the node takes is kept, else the
 * sign-in card (`routes` and `check` as for `SignIn`).
 */
export function SignedIn({
  routes,
  check,
  children,
}: {
  routes: string;
  check: (token: string) => Promise<unknown>;
  children: (token: string, signOut: () => void) => VNode;
}) {
  const { token, save, clear } = useToken();
  return token ? children(token, clear) : <SignIn routes={routes} check={check} onToken={save} />;
}
