// Home is the apps page: what people come to the dashboard for, and a new account's first step.
import { redirect } from "@sveltejs/kit";
import { HOME } from "$lib/navigation";

export const load = () => redirect(307, HOME);
