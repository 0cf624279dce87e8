// Small helpers shared by the dashboard's forms.
import { tick } from "svelte";
import type { Problem } from "$lib/services/errors";

/** The message for the top of the form: only when no input of the form carries its own. */
export function formMessage(problem: Problem | null, inputs: readonly string[]): string | null {
  if (!problem) return null;
  return inputs.some((name) => problem.fields[name]) ? null : problem.message;
}

/**
 * After a failed submit, moves focus to the first input marked invalid so it is read out; when the problem is
 * the whole form's (a wrong email or password), to its first field, so focus never falls to the page.
 */
export async function focusFirstInvalid(form: HTMLFormElement | undefined): Promise<void> {
  await tick();
  const target =
    form?.querySelector<HTMLElement>('[aria-invalid="true"]') ??
    form?.querySelector<HTMLElement>("input:not([type=hidden]):not([disabled]), textarea:not([disabled]), select:not([disabled])");
  target?.focus();
}

/**
 * After an action removed what had the focus (a deleted item, a closed notice): moves it to the element with
 * this id, a list's heading say, made focusable from script only (tabindex -1) if it is not already.
 */
export async function focusById(id: string): Promise<void> {
  await tick();
  const element = document.getElementById(id);
  if (!element) return;
  if (!element.hasAttribute("tabindex") && element.tabIndex < 0) element.tabIndex = -1;
  element.focus();
}
