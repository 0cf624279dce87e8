// Short notices in the corner (signed in, signed out, a failure not tied to a form). Read by Toasts.svelte.
export interface Toast {
  id: number;
  kind: "success" | "error";
  message: string;
}

const DURATION_MS = 5000;
let nextId = 1;

export const toasts = $state<Toast[]>([]);

export function dismissToast(id: number): void {
  const index = toasts.findIndex((t) => t.id === id);
  if (index >= 0) toasts.splice(index, 1);
}

function show(kind: Toast["kind"], message: string): void {
  const id = nextId++;
  toasts.push({ id, kind, message });
  setTimeout(() => dismissToast(id), DURATION_MS);
}

export const toast = {
  success: (message: string) => show("success", message),
  error: (message: string) => show("error", message),
};
