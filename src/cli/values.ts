import { parsePeerAddress } from "../network/peering.js";
import { normalMnemonic } from "../node/devAccounts.js";
import { usageError } from "./usageError.js";

/**
 * The kinds of value a flag takes: how its text becomes the value, and how a refusal is worded
 * (`<where> takes <what>, got "<text>"`, the same for every flag of every command).
 */

export interface ValueType<T> {
  /** How help and messages name the value, e.g. `<n>`. */
  placeholder: string;
  /** The value of `text`; throws `refused(...)` for text it does not take. */
  parse(text: string): T;
  /** The flag may be given more than once, its values add up (`parse` returns a list). */
  repeatable?: boolean;
}

/** A refusal of `text`; the parser puts where the text came from (`--flag`, a variable, a file) in front. */
export function refused(what: string, text: string, why?: string) {
  return usageError(`takes ${what}, got "${text}"${why ? ` (${why})` : ""}`);
}

export const text = (placeholder = "<value>"): ValueType<string> => ({ placeholder, parse: (t) => t });

/** A non-negative integer a double holds exactly (at most 2^53 - 1). */
export const integer: ValueType<number> = {
  placeholder: "<n>",
  parse(t) {
    if (!/^\d+$/.test(t)) throw refused("a non-negative integer", t);
    const n = Number(t);
    if (!Number.isSafeInteger(n)) throw refused(`an integer from 0 to ${Number.MAX_SAFE_INTEGER}`, t);
    return n;
  },
};

/** An integer from `min` to `max`. */
export function between(min: number, max: number): ValueType<number> {
  return {
    placeholder: "<n>",
    parse(t) {
      const n = /^\d+$/.test(t) ? Number(t) : Number.NaN;
      if (!(n >= min && n <= max)) throw refused(`an integer from ${min} to ${max}`, t);
      return n;
    },
  };
}

/** A non-negative integer no larger than `max`. */
export const upTo = (max: number): ValueType<number> => between(0, max);

/** A TCP port (0: none, or a free one, as the flag says). */
export const port = upTo(65_535);

/** Milliseconds a timer can wait (Node's timers take at most 2^31 - 1; more fire at once). */
export const milliseconds = upTo(2_147_483_647);

/** Seconds a timer can wait (as `milliseconds`). */
export const seconds = upTo(2_147_483);

/** A u32 of the protocol (a PoW score, a milestone count). */
export const u32 = upTo(0xffff_ffff);

/** A BIP-39 mnemonic (checked: words, word list, checksum), in its normal form. */
export const mnemonic: ValueType<string> = {
  placeholder: '"<words>"',
  parse(t) {
    try {
      return normalMnemonic(t);
    } catch (e) {
      // the words are not echoed: a mnemonic is a secret, even a mistyped one
      throw refused("a BIP-39 mnemonic", `${t.trim().split(/\s+/).length} words`, (e as Error).message);
    }
  },
};

export const trueOrFalse: ValueType<boolean> = {
  placeholder: "true|false",
  parse(t) {
    if (t !== "true" && t !== "false") throw refused("true or false", t);
    return t === "true";
  },
};

export function oneOf<const C extends string>(choices: readonly C[]): ValueType<C> {
  return {
    placeholder: `<${choices.join("|")}>`,
    parse(t) {
      if (!(choices as readonly string[]).includes(t)) throw refused(`one of ${choices.join(", ")}`, t);
      return t as C;
    },
  };
}

/** A value the text must match, e.g. a time span. */
export function matching(pattern: RegExp, what: string, placeholder: string): ValueType<string> {
  return {
    placeholder,
    parse(t) {
      if (!pattern.test(t.trim())) throw refused(what, t);
      return t.trim();
    },
  };
}

/** The flag once per item (`--coordinator-key a --coordinator-key b`); the text is taken whole. */
export const repeated = (placeholder: string): ValueType<string[]> => ({
  placeholder,
  repeatable: true,
  parse: (t) => [t],
});

/** Comma-separated items, also repeatable (`--peer a --peer b` is `--peer a,b`); each item checked by `item`. */
export function list(item: (t: string) => string = (t) => t): ValueType<string[]> {
  return {
    placeholder: "<a,b,...>",
    repeatable: true,
    parse: (t) =>
      t
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x.length > 0)
        .map(item),
  };
}

/**
 * An origin as a browser's `Origin` header carries it (lower case, no default port, no slash),
 * since it is compared with that header as a string; a path or a missing scheme would never match.
 */
export function origin(t: string): string {
  if (t === "*") return t;
  let url: URL | undefined;
  try {
    url = new URL(t);
  } catch {
    url = undefined;
  }
  const bare = url && url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "";
  if (!url || !bare || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw refused("origins (scheme://host[:port]) or *", t);
  return url.origin;
}

/** A peer address libp2p can dial, found before anything starts. */
export function peerAddress(t: string): string {
  try {
    parsePeerAddress(t);
  } catch (e) {
    throw refused(
      "TCP multiaddrs (/ip4/<host>/tcp/<port>/p2p/<peer id>)",
      t,
      (e as Error).message.replace(`"${t}": `, ""),
    );
  }
  return t;
}
