import { ChainPage } from "../../explorer/chainPage";

/** `/dashboard/explorer/alias/:aliasId`: the alias's current output and its history (explorer/chainPage.tsx). */
export function AliasPage({ aliasId }: { aliasId: string }) {
  return <ChainPage kind="alias" id={aliasId} />;
}
