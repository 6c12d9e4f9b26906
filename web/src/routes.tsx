import { EXPLORER_ROUTES } from "./pages/Explorer";
import { Faucet } from "./pages/Faucet";
import { Home } from "./pages/Home";
import { Peers } from "./pages/Peers";
import { Spammer } from "./pages/Spammer";
import { Tangle } from "./pages/Tangle";
import type { AppRoute } from "./paths";

/**
 * The dashboard's pages by URL. Every URL is real: the node answers `index.html` for any
 * `/dashboard/*` path that is not a file (src/api/dashboard.ts), so a page can be reloaded or
 * shared. One page per file under `pages/`; a page receives its path parameters as props
 * (preact-iso: `/explorer/block/:blockId` gives `blockId`).
 */

export const ROUTES: AppRoute[] = [
  { path: "/", component: Home },
  ...EXPLORER_ROUTES,
  { path: "/tangle", component: Tangle },
  { path: "/peers", component: Peers },
  { path: "/faucet", component: Faucet },
  { path: "/spammer", component: Spammer },
];

/** The header's navigation; `match` is the path prefix that marks the entry as the current page. */
export const NAV: { label: string; path: string; match: string }[] = [
  { label: "Home", path: "/", match: "/" },
  { label: "Explorer", path: "/explorer", match: "/explorer" },
  { label: "Live tangle", path: "/tangle", match: "/tangle" },
  { label: "Peers", path: "/peers", match: "/peers" },
  { label: "Faucet", path: "/faucet", match: "/faucet" },
  { label: "Spammer", path: "/spammer", match: "/spammer" },
];
