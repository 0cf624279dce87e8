import { DeployError } from "../errors.ts";

/**
 * A build that cannot go on because of the project itself (no Procfile web: line, invalid package.json, …).
 * The message is written for the user and goes to the deployment's build log as is.
 */
export class BuildError extends DeployError {
  /** The builder that recognised the project and then refused it, when one did (the deployment records it). */
  builder?: string;
}
