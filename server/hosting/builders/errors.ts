/**
 * A build that cannot go on because of the project itself (no Procfile web: line, invalid package.json, …).
 * The message is written for the user and goes to the deployment's build log as is.
 */
export class BuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BuildError";
  }
}
