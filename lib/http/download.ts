/** A device config as a `.conf` download (`<location>-<device>.conf`, safe characters only). */
export function confDownload(location: string, device: string, text: string): Response {
  const file = `${location}-${device}`.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60);
  return new Response(text, {
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "content-disposition": `attachment; filename="${file}.conf"`,
      "cache-control": "no-store",
    },
  });
}
