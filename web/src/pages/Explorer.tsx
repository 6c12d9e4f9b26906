import { api } from "../api";
import { Card, ErrorNote, FetchedCard } from "../components";
import { EntityLink } from "../explorer/parts";
import { SearchForm } from "../explorer/search";
import { useFetched, useTitle } from "../hooks";
import { type AppRoute, href } from "../paths";
import { AddressPage } from "./explorer/Address";
import { AliasPage } from "./explorer/Alias";
import { BlockPage } from "./explorer/Block";
import { FoundryPage } from "./explorer/Foundry";
import { MilestonePage } from "./explorer/Milestone";
import { NftPage } from "./explorer/Nft";
import { OutputPage } from "./explorer/Output";
import { TagPage } from "./explorer/Tag";
import { TransactionPage } from "./explorer/Transaction";
import "../explorer/explorer.css";

/**
 * The explorer, after the IOTA explorer's information architecture: one search box that takes
 * any ID, index, address or tag (explorer/resolve.ts), and one page per kind of thing, each at a
 * real URL under `/dashboard/explorer/` (so a page reloads and can be shared). It reads the node
 * only through its public REST routes, and hashes bytes in the page where a page must
 * (explorer/codec.ts).
 */

/** How often the latest milestones are read again. */
const MILESTONES_REFRESH_MS = 5_000;
const LATEST_MILESTONES = 10;

function LatestMilestones() {
  const latest = useFetched(
    (signal) => api.explorerMilestones({ sort: "newest", pageSize: LATEST_MILESTONES }, { signal }),
    [],
    MILESTONES_REFRESH_MS,
  );
  return (
    <FetchedCard title="Latest milestones" id="explorer-latest" state={latest} what="the latest milestones">
      {(page) => (
        <ul class="plain-list" data-latest-milestones>
          {page.items.map((m) => (
            <li key={m.index}>
              <EntityLink kind="milestone" id={m.index} />{" "}
              <span class="muted mono" title={m.milestoneId}>
                {m.milestoneId.slice(0, 18)}…
              </span>
            </li>
          ))}
        </ul>
      )}
    </FetchedCard>
  );
}

/** `/dashboard/explorer`: the search and a way in through the latest milestones. */
export function Explorer() {
  useTitle("Explorer");
  return (
    <>
      <h1>Explorer</h1>
      <Card title="Search" id="explorer-search-card">
        <SearchForm />
      </Card>
      <LatestMilestones />
    </>
  );
}

/** Any other `/dashboard/explorer/...` URL. */
function ExplorerNotFound({ rest }: { rest?: string }) {
  useTitle("Explorer");
  return (
    <>
      <h1>Explorer</h1>
      <ErrorNote message={`The explorer has no page at "${rest ?? ""}". Search for what you are looking for.`} />
      <Card title="Search" id="explorer-search-card">
        <SearchForm />
      </Card>
      <p>
        <a href={href("/explorer")}>Back to the explorer</a>
      </p>
    </>
  );
}

/** The explorer's pages by URL (routes.tsx puts them under BASE). */
export const EXPLORER_ROUTES: AppRoute[] = [
  { path: "/explorer", component: Explorer },
  { path: "/explorer/block/:blockId", component: BlockPage },
  { path: "/explorer/transaction/:transactionId", component: TransactionPage },
  { path: "/explorer/output/:outputId", component: OutputPage },
  { path: "/explorer/milestone/:index", component: MilestonePage },
  { path: "/explorer/address/:bech32", component: AddressPage },
  { path: "/explorer/alias/:aliasId", component: AliasPage },
  { path: "/explorer/nft/:nftId", component: NftPage },
  { path: "/explorer/foundry/:foundryId", component: FoundryPage },
  { path: "/explorer/tag/:tag", component: TagPage },
  { path: "/explorer/*", component: ExplorerNotFound },
];
