// A file sent to a REST upload route as multipart/form-data (part `file`), streamed from disk with the upload
// progress bar (bytes, rate, ETA). deploy's zip and cdn:upload's file go this way.
import fs from "node:fs";
import { Readable } from "node:stream";
import type { Api } from "./api.ts";
import { startProgress } from "./progress.ts";

export interface UploadTarget {
  method: "POST" | "PUT";
  path: string;
  file: string;
  bytes: number;
  fileName: string;
  contentType: string;
  label: string;
}

/** The server's answer: its status and JSON body (null when it was not JSON). */
export async function uploadFile(api: Api, target: UploadTarget): Promise<{ status: number; body: any }> {
  const boundary = `----slipway${Math.random().toString(16).slice(2)}`;
  const name = target.fileName.replace(/["\r\n\\]/g, "_");
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${target.contentType}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + target.bytes + tail.length;
  const body = () => {
    let sent = 0;
    const progress = startProgress(target.bytes, target.label);
    async function* parts() {
      const bar = await progress;
      yield head;
      for await (const chunk of fs.createReadStream(target.file, { highWaterMark: 64 * 1024 })) {
        sent += chunk.length;
        bar.update(sent);
        yield chunk as Buffer;
      }
      bar.update(target.bytes);
      bar.stop();
      yield tail;
    }
    return Readable.toWeb(Readable.from(parts())) as unknown as BodyInit;
  };
  const res = await api.fetch(
    target.path,
    { method: target.method, headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(length), accept: "application/json" } },
    body,
  );
  return { status: res.status, body: await res.json().catch(() => null) };
}
