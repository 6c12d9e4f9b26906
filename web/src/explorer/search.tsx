import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, messageOf } from "../api";
import { useNodeInfo } from "../nodeInfo";
import { explorerHref } from "./links";
import { resolveSearch } from "./resolve";

/**
 * The explorer's one search box: any ID, index, address or tag (resolve.ts) opens its page; a
 * search that names nothing, or fails, says so under the box. `compact` is the box at the top of
 * every explorer page (its label read by screen readers only).
 */
export function SearchForm({ compact = false }: { compact?: boolean }) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const { route } = useLocation();
  const info = useNodeInfo().data;
  const running = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => running.current?.abort(), []);

  const inputId = compact ? "explorer-search-compact" : "explorer-search";
  const submit = async (e: Event) => {
    e.preventDefault();
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setBusy(true);
    setMessage(undefined);
    try {
      // a search sent before the shared info loaded (a page opened a moment ago) asks for it itself
      const hrp = (info ?? (await api.info({ signal: controller.signal }))).protocol.bech32Hrp;
      if (controller.signal.aborted) return;
      const found = await resolveSearch(text, hrp, controller.signal);
      if (controller.signal.aborted) return;
      if ("message" in found) setMessage(found.message);
      else {
        setText("");
        route(explorerHref(found.kind, found.id));
      }
    } catch (err) {
      if (!controller.signal.aborted) setMessage(`The search failed: ${messageOf(err)}`);
    } finally {
      if (!controller.signal.aborted) setBusy(false);
    }
  };

  return (
    <search class={compact ? "search compact" : "search"} aria-label="Explorer">
      <form onSubmit={submit}>
        <label for={inputId} class={compact ? "visually-hidden" : undefined}>
          Search the ledger
        </label>
        {!compact && (
          <span id={`${inputId}-hint`} class="hint">
            A block, transaction, output or milestone ID, a milestone index, an address, an alias, NFT or foundry ID, or
            a tag.
          </span>
        )}
        <div class="search-row">
          <input
            id={inputId}
            type="search"
            autocomplete="off"
            spellcheck={false}
            placeholder="ID, index, address or tag"
            aria-describedby={compact ? undefined : `${inputId}-hint`}
            value={text}
            onInput={(e) => setText((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={busy}>
            {busy ? "Searching…" : "Search"}
          </button>
        </div>
        {busy && <output class="loading">Looking it up…</output>}
        {message && (
          <p class="error" role="alert" data-search-message>
            {message}
          </p>
        )}
      </form>
    </search>
  );
}
