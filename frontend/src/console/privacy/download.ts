// The privacy export as a file: its name from the answer's header, handed to the browser as a download.

/** The file name of a Content-Disposition header, or `fallback`. */
export function attachmentName(header: string | null, fallback: string): string {
  const match = header ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header) : null;
  return match ? decodeURIComponent(match[1]!) : fallback;
}

/** Hands `blob` to the browser as a download named `name` (no navigation, nothing inline). */
export function download(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser time to start reading the blob before it goes.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
