// Where a deployment's project comes from. Each source fills a release directory with the project's files
// (an uploaded zip now, a git checkout later); the deploy pipeline then detects and runs a build in it.

export interface Source {
  /** Names the source in the build log: "the uploaded zip", "acme/site@1a2b3c4". */
  readonly description: string;
  /**
   * Fills destDir, which must not exist yet (its parent may not either), with the project's files.
   * destDir appears whole or not at all: on failure nothing is left there or beside it.
   * Invalid input (a malformed or malicious archive) throws InvalidRequestError naming the problem.
   */
  fetch(destDir: string, log: (line: string) => void): Promise<void>;
}
