// Lists that grow with a user's data are read a page at a time: `first` items (default 50, at most 100),
// after the item whose id `after` names (the last item of the previous page).
import { InvalidRequestError } from "../errors.ts";

export const PAGE_SIZE = { default: 50, max: 100 };

export interface Page {
  first: number;
  after?: string;
}

export function pageOf(args: { first: number; after?: string | null }): Page {
  if (!Number.isInteger(args.first) || args.first < 1 || args.first > PAGE_SIZE.max) {
    throw new InvalidRequestError(`Ask for 1 to ${PAGE_SIZE.max} items at a time (first: ${args.first}).`, {
      first: `Use a number from 1 to ${PAGE_SIZE.max}.`,
    });
  }
  return { first: args.first, ...(args.after ? { after: args.after } : {}) };
}
