// GitHub tokens for cloning private repositories: the operator's GITHUB_TOKEN, or one an app's owner sets.
// An app's token is stored AES-256-GCM encrypted, bound to its app (the app id is the additional data, so a
// value copied onto another row does not decrypt), with a key generated into DATA_DIR on first use
// (secrets/github-tokens.key, mode 0600; services/sealed.ts). It is never shown back: the API says only whether one is set.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { createSealer } from "./sealed.ts";

export function createGitHubTokenStore(deps: { db: Db; config: Config }) {
  const sealer = createSealer(deps.config.sharedDataDir, "github-tokens");

  return {
    encrypt: (appId: string, token: string): string => sealer.seal(appId, token),

    /** The app's own token (a preview app uses its parent's), else the operator's, else none. */
    async tokenFor(appId: string): Promise<string | null> {
      const app = await deps.db.app.findUnique({ where: { id: appId }, select: { id: true, githubToken: true, previewOf: { select: { id: true, githubToken: true } } } });
      const owner = app?.previewOf ?? app;
      // Another key (DATA_DIR replaced) opens nothing: as if no token were set.
      return (owner?.githubToken ? sealer.open(owner.id, owner.githubToken) : null) ?? deps.config.githubToken ?? null;
    },
  };
}

export type GitHubTokenStore = ReturnType<typeof createGitHubTokenStore>;
