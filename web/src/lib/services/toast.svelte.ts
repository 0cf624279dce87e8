// Short notices in the corner (signed in, signed out, a failure not tied to a form). Read by Toasts.svelte.
// A success goes away by itself after a few seconds; an error stays until it is dismissed, so it can be read.
export interface Toast {
  id: number;
  kind: "success" | "error";
  message: string;
}

const SUCCESS_MS = 5000;
let nextId = 1;

export const toasts = $state<Toast[]>([]);

export function dismissToast(id: number): void {
  const index = toasts.findIndex((t) => t.id === id);
  if (index >= 0) toasts.splice(index, 1);
}

/** Drops every notice, e.g. at sign-out: none of the previous session's outlives it. */
export function clearToasts(): void {
  toasts.splice(0);
}

function show(kind: Toast["kind"], message: string): void {
  const id = nextId++;
  toasts.push({ id, kind, message });
  if (kind === "success") setTimeout(() => dismissToast(id), SUCCESS_MS);
}

export const toast = {
  success: (message: string) => show("success", message),
  error: (message: string) => show("error", message),
};
