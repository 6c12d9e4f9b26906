import { ChainPage } from "../../explorer/chainPage";

/** `/dashboard/explorer/foundry/:foundryId`: the foundry's current output and its history (explorer/chainPage.tsx). */
export function FoundryPage({ foundryId }: { foundryId: string }) {
  return <ChainPage kind="foundry" id={foundryId} />;
}
