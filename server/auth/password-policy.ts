// Which passwords Slipway accepts (NIST SP 800-63B §5.1.1.2): at least 8 characters, no composition rules,
// and none that a guesser tries early: common and breached-list passwords, keyboard walks, repeats,
// dictionary words and the account's own email or name. zxcvbn-ts estimates the guesses an attacker needs
// from its password lists; a score below 3 (fewer than ~10^8 guesses) is refused, with its reason.
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as common from "@zxcvbn-ts/language-common";
import * as english from "@zxcvbn-ts/language-en";

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;
const MIN_SCORE = 3;
// The estimate costs time that grows with the length; a guessable password is caught in its first 100 characters.
const ESTIMATED_PREFIX = 100;

let estimator: ZxcvbnFactory | undefined;
function estimate(password: string, userInputs: string[]) {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
  });
  return estimator.check(password.slice(0, ESTIMATED_PREFIX), userInputs);
}

/** Why `password` may not be used, as a sentence to show beside the field, or null when it is acceptable. */
export function passwordProblem(password: unknown, userInputs: string[] = []): string | null {
  if (typeof password !== "string" || password.length < MIN_PASSWORD_LENGTH) return `Use a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Use a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  const inputs = userInputs.flatMap((input) => [input, ...input.split(/[@.+_-]/)]).filter((part) => part.length >= 3);
  const result = estimate(password, inputs);
  if (result.score >= MIN_SCORE) return null;
  const why = result.feedback.warning ?? "It would be guessed quickly.";
  const how = result.feedback.suggestions[0] ?? "Use a few uncommon words together.";
  return `This password is too easy to guess. ${why} ${how}`;
}
