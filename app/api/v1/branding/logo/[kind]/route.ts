import { actorOf, route } from "@/lib/http/route";
import { notFound } from "@/lib/errors";
import { LOGO_KINDS, logoUploadSchema, type LogoKind } from "@/lib/settings/schema";
import { readLogo, removeLogo, uploadLogo } from "@/lib/settings/branding";

function kindOf(params: Record<string, string>): LogoKind {
  const k = params.kind as LogoKind;
  if (!LOGO_KINDS.includes(k)) throw notFound("logo kind must be main or nav");
  return k;
}

/**
 * The uploaded logo (public: the sign-in page shows it). The settings point at `?v=<etag>`, a
 * new address per upload, which may be cached for good; any other address is revalidated.
 */
export const GET = route({ access: "public" }, async ({ req, params }) => {
  const logo = await readLogo(kindOf(params));
  const etag = `"${logo.etag}"`;
  const versioned = new URL(req.url).searchParams.get("v") === logo.etag.slice(0, 16);
  const headers: Record<string, string> = {
    "content-type": logo.contentType,
    etag,
    "cache-control": versioned ? "public, max-age=31536000, immutable" : "public, no-cache",
    "x-content-type-options": "nosniff",
    // An SVG opened on its own may not run or load anything.
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  };
  const match = req.headers.get("if-none-match");
  if (match && match.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(logo.data), { headers: { ...headers, "content-length": String(logo.data.length) } });
});

export const POST = route({ access: "admin", body: logoUploadSchema, maxBody: 3 * 1024 * 1024 }, async (ctx) =>
  uploadLogo(actorOf(ctx), kindOf(ctx.params), ctx.body),
);

export const DELETE = route({ access: "admin" }, async (ctx) => removeLogo(actorOf(ctx), kindOf(ctx.params)));
