// Short notices (signed in, a deploy went live or failed, a failure not tied to a form). Read by Toasts.svelte.
// A notice replaces the successes before it, so an outdated one ("the build is starting") never outlives the
// outcome; a success goes away by itself after a few seconds, an error stays until it is dismissed.
export interface ToastLink {
  href: string;
  label: string;
}

export interface Toast {
  id: number;
  kind: "success" | "error";
  message: string;
  link: ToastLink | null;
}

const SUCCESS_MS = 5000;
/** Errors kept at once: older ones go first. */
const MAX_ERRORS = 3;
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

function show(kind: Toast["kind"], message: string, link: ToastLink | null): void {
  const id = nextId++;
  const kept = toasts.filter((t) => t.kind === "error").slice(kind === "error" ? -(MAX_ERRORS - 1) : -MAX_ERRORS);
  toasts.splice(0, toasts.length, ...kept, { id, kind, message, link });
  if (kind === "success") setTimeout(() => dismissToast(id), SUCCESS_MS);
}

export const toast = {
  success: (message: string, link: ToastLink | null = null) => show("success", message, link),
  error: (message: string, link: ToastLink | null = null) => show("error", message, link),
};
