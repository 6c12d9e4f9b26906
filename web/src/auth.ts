import { useCallback, useState } from "preact/hooks";

/**
 * The JWT that opens the node's protected routes (README, HTTP API), as the user pasted it:
 * kept in sessionStorage, so it lives as long as the browser tab and is never written to disk
 * by the page nor sent anywhere but to this node, in the Authorization header.
 */

const KEY = "ledger-node.jwt";

/** A JWT is three base64url parts; anything else is refused before it is sent. */
export const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

function read(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    // storage disabled (a private mode): the token lives in memory only
    return undefined;
  }
}

/** The stored token and its setters. */
export function useToken(): { token: string | undefined; save: (t: string) => void; clear: () => void } {
  const [token, setToken] = useState<string | undefined>(read);
  const save = useCallback((t: string) => {
    try {
      sessionStorage.setItem(KEY, t);
    } catch {
      // kept in memory only
    }
    setToken(t);
  }, []);
  const clear = useCallback(() => {
    try {
      sessionStorage.removeItem(KEY);
    } catch {
      // nothing stored
    }
    setToken(undefined);
  }, []);
  return { token, save, clear };
}
