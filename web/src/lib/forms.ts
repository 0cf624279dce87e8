// Small helpers shared by the dashboard's forms.
import { tick } from "svelte";
import type { Problem } from "$lib/services/errors";

/** The message for the top of the form: only when no input of the form carries its own. */
export function formMessage(problem: Problem | null, inputs: readonly string[]): string | null {
  if (!problem) return null;
  return inputs.some((name) => problem.fields[name]) ? null : problem.message;
}

/** After a failed submit, moves focus to the first input marked invalid so it is read out. */
export async function focusFirstInvalid(form: HTMLFormElement | undefined): Promise<void> {
  await tick();
  form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
}
