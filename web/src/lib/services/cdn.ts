// CDN files: uploading (to the REST upload route, for its progress: the file streams into storage) and
// deleting. Each function says how it went (a toast, or a Problem for the page to show) and reloads the page.
// Also the further pages of the list.
import { invalidate } from "$app/navigation";
import { formatBytes } from "$lib/format";
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { problemFrom, problemFromRest } from "./errors";
import { done, failed, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

/** The CDN page's load depends on this. */
export const CDN_DEPENDENCY = "app:cdn";

/** The page size: `files(first: 100)` here and in the CDN page's load. */
export const FILES_PAGE = 100;

const FilesPageQuery = graphql(`
  query CdnFilesPage($after: String!) {
    files(after: $after, first: 100) {
      id
      ...FileList_file
    }
  }
`);

const DeleteMutation = graphql(`
  mutation DeleteFile($id: ID!) {
    deleteFile(id: $id)
  }
`);

export interface Limits {
  maxUploadBytes: number;
  /** What is left of cdnBytes. */
  freeBytes: number;
}

/** Uploads a file to `POST /api/cdn` (multipart part `file`), reporting progress from 0 to 1. */
export function uploadFile(file: File, limits: Limits, onprogress: (fraction: number) => void): Promise<Outcome<{ id: string; url: string }>> {
  const refuse = (message: string) => Promise.resolve(failed<{ id: string; url: string }>({ code: "invalid_request", message, fields: {} }));
  if (file.size > limits.maxUploadBytes) {
    return refuse(`${file.name} is ${formatBytes(file.size)}, more than your upload limit of ${formatBytes(limits.maxUploadBytes)}.`);
  }
  if (file.size > limits.freeBytes) {
    return refuse(`${file.name} is ${formatBytes(file.size)}, and only ${formatBytes(limits.freeBytes)} of your CDN storage is free. Delete files to make room.`);
  }
  const body = new FormData();
  body.append("file", file, file.name);
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/cdn");
    xhr.responseType = "json";
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onprogress(event.loaded / event.total);
    };
    xhr.onload = () => {
      if (xhr.status === 201 && typeof xhr.response?.id === "string") {
        onprogress(1);
        toast.success(`Uploaded ${file.name}.`);
        void invalidate(CDN_DEPENDENCY);
        resolve({ ok: true, value: { id: xhr.response.id, url: xhr.response.url } });
      } else {
        resolve(failed(problemFromRest(xhr.response)));
      }
    };
    xhr.onerror = () => resolve(failed(problemFrom({ code: "network", message: "" })));
    xhr.send(body);
  });
}

export async function deleteFile(file: { id: string; name: string }): Promise<Outcome> {
  const result = await graphqlClient().mutation(DeleteMutation, { id: file.id }).toPromise();
  if (!result.data) return failed(problemFrom(result.error), `Could not delete ${file.name}.`);
  toast.success(`Deleted ${file.name}. Its address no longer answers.`);
  await invalidate(CDN_DEPENDENCY);
  return done;
}

/** The page of files after the one with the id `after`; null (and an error toast) when it cannot load. */
export async function filesPage(after: string) {
  const result = await graphqlClient().query(FilesPageQuery, { after }, { requestPolicy: "network-only" }).toPromise();
  if (result.data) return result.data.files;
  failed(problemFrom(result.error), "Could not load more files.");
  return null;
}

/** Copies `text`; false when the page may not use the clipboard (plain http on a LAN address). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
