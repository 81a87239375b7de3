import "server-only";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { getDb } from "../db";
import { brandingLogos, settings } from "../db/schema";
import { transaction } from "../events";
import { recordActivity, type Actor } from "../activity/service";
import { AppError, badRequest } from "../errors";
import { getSettings, settingsView } from "./service";
import { LOGO_MAX_BYTES, LOGO_MAX_PX, type LogoKind, type LogoUpload } from "./schema";

/**
 * Uploaded logos (Settings → Global). The image is kept in the database (table branding_logos),
 * so every console process serves the same one; the settings' main_logo_url / nav_logo_url then
 * point at GET /api/v1/branding/logo/{kind}?v=<etag>, a new address for every upload, so
 * browsers may cache each version for good.
 */

export interface CheckedLogo {
  contentType: "image/png" | "image/jpeg" | "image/svg+xml";
  data: Buffer;
  width: number | null;
  height: number | null;
}

const KIND_NAME: Record<LogoKind, string> = { main: "main logo", nav: "navigation logo" };
const fail = (msg: string) => badRequest(msg, "image");

/** PNG: width and height from the IHDR chunk. */
function pngSize(b: Buffer): { width: number; height: number } | null {
  if (b.length < 24 || b.toString("latin1", 12, 16) !== "IHDR") return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** JPEG: width and height from the first start-of-frame marker. */
function jpegSize(b: Buffer): { width: number; height: number } | null {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const len = b.readUInt16BE(i + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + len;
  }
  return null;
}

/** Elements a logo may use: shapes, text, gradients, clipping. Nothing that runs or loads. */
const SVG_ELEMENTS = new Set(
  "svg g path rect circle ellipse line polyline polygon text tspan textpath defs lineargradient radialgradient stop clippath mask pattern use symbol title desc style metadata filter fegaussianblur feoffset feblend fecolormatrix fecomposite feflood femerge femergenode".split(
    " ",
  ),
);

/**
 * An SVG is accepted only when it is plainly a drawing: no scripts, event handlers, foreign
 * content, entities or references outside the document (href and url() only to #fragments).
 * It is refused, not rewritten: the stored file is exactly what was checked. Returns the reason
 * it is refused, or null.
 */
export function svgRefusal(text: string): string | null {
  const body = text.replace(/^\uFEFF/, "").replace(/<\?xml[^>]*\?>/, "").replace(/<!--[\s\S]*?-->/g, "").trim();
  if (/<!DOCTYPE|<!ENTITY|<\?/i.test(body)) return "the SVG file may not declare a DOCTYPE, entities or processing instructions";
  if (!/^<svg[\s>]/i.test(body)) return "the SVG file must start with an <svg> element";
  if (/<!\[CDATA\[/i.test(body)) return "the SVG file may not contain CDATA sections";
  for (const m of body.matchAll(/<\s*([A-Za-z][\w:.-]*)/g)) {
    const name = m[1].toLowerCase();
    if (!SVG_ELEMENTS.has(name)) return `the SVG file may not contain <${m[1]}> elements`;
  }
  for (const m of body.matchAll(/\s([A-Za-z_:][\w:.-]*)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/g)) {
    const name = m[1].toLowerCase();
    const value = m[2].replace(/^["']|["']$/g, "").trim();
    if (name.startsWith("on")) return `the SVG file may not contain event handlers (${m[1]})`;
    if ((name === "href" || name.endsWith(":href")) && !value.startsWith("#")) return "the SVG file may only link to its own elements (href=\"#...\")";
  }
  if (/javascript:|vbscript:|data:/i.test(body)) return "the SVG file may not contain script or data URLs";
  if (/@import/i.test(body)) return "the SVG file may not import style sheets";
  for (const m of body.matchAll(/url\(\s*["']?([^)"']*)/gi)) {
    if (!m[1].trim().startsWith("#")) return "the SVG file may only refer to its own elements (url(#...))";
  }
  return null;
}

/** Decode and check an uploaded logo: type (by its bytes, not only its label), size, pixel size, SVG content. */
export function checkLogo(kind: LogoKind, input: LogoUpload): CheckedLogo {
  const m = /^data:([\w.+/-]+)(;[\w=.-]+)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(input.image.trim());
  if (!m) throw fail("the logo must be sent as a base64 data URL (data:image/png;base64,...)");
  const declared = m[1].toLowerCase();
  const data = Buffer.from(m[3].replace(/\s+/g, ""), "base64");
  if (data.length === 0) throw fail("the logo file is empty");
  if (data.length > LOGO_MAX_BYTES) {
    throw fail(`the logo file is ${Math.ceil(data.length / 1024)} KB; at most ${LOGO_MAX_BYTES / 1024} KB is accepted`);
  }
  const max = LOGO_MAX_PX[kind];
  let checked: CheckedLogo;
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    const size = pngSize(data);
    if (!size) throw fail("the PNG file is damaged (no image header)");
    checked = { contentType: "image/png", data, ...size };
  } else if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) {
    const size = jpegSize(data);
    if (!size) throw fail("the JPEG file is damaged (no frame header)");
    checked = { contentType: "image/jpeg", data, ...size };
  } else if (declared === "image/svg+xml") {
    const text = data.toString("utf8");
    if (Buffer.from(text, "utf8").length !== data.length || text.includes("\u0000")) throw fail("the SVG file is not UTF-8 text");
    const refusal = svgRefusal(text);
    if (refusal) throw fail(refusal);
    checked = { contentType: "image/svg+xml", data, width: null, height: null };
  } else {
    throw fail("the logo must be a PNG, JPEG or SVG image");
  }
  if (declared !== checked.contentType && !(declared === "image/jpg" && checked.contentType === "image/jpeg")) {
    throw fail(`the file is a ${checked.contentType.slice(6).toUpperCase()} image but was sent as ${declared}`);
  }
  if (checked.width !== null && checked.height !== null && (checked.width > max.width || checked.height > max.height)) {
    throw fail(`the ${KIND_NAME[kind]} may be at most ${max.width}×${max.height} px; this image is ${checked.width}×${checked.height} px`);
  }
  if (checked.width === 0 || checked.height === 0) throw fail("the image has no pixels");
  return checked;
}

export function logoUrl(kind: LogoKind, etag: string): string {
  return `/api/v1/branding/logo/${kind}?v=${etag.slice(0, 16)}`;
}

const urlColumn = { main: "mainLogoUrl", nav: "navLogoUrl" } as const;

/** POST /branding/logo/{kind}: store the logo and point the setting at it; answers the settings. */
export async function uploadLogo(actor: Actor, kind: LogoKind, input: LogoUpload) {
  const logo = checkLogo(kind, input);
  const etag = createHash("sha256").update(logo.data).digest("hex").slice(0, 32);
  return transaction(async (tx) => {
    await getSettings(tx);
    await tx
      .insert(brandingLogos)
      .values({ kind, contentType: logo.contentType, data: logo.data, etag })
      .onConflictDoUpdate({ target: brandingLogos.kind, set: { contentType: logo.contentType, data: logo.data, etag, updatedAt: new Date() } });
    await tx.update(settings).set({ [urlColumn[kind]]: logoUrl(kind, etag) }).where(eq(settings.id, 1));
    await recordActivity(tx, actor, {
      event: "branding_logo_uploaded",
      description: `${KIND_NAME[kind][0].toUpperCase()}${KIND_NAME[kind].slice(1)} uploaded (${logo.contentType}, ${Math.ceil(logo.data.length / 1024)} KB)`,
    });
    return settingsView(await getSettings(tx));
  });
}

/** DELETE /branding/logo/{kind}: back to the default logo. */
export async function removeLogo(actor: Actor, kind: LogoKind) {
  return transaction(async (tx) => {
    await getSettings(tx);
    await tx.delete(brandingLogos).where(eq(brandingLogos.kind, kind));
    await tx.update(settings).set({ [urlColumn[kind]]: "" }).where(eq(settings.id, 1));
    await recordActivity(tx, actor, { event: "branding_logo_removed", description: `${KIND_NAME[kind][0].toUpperCase()}${KIND_NAME[kind].slice(1)} reset to the default` });
    return settingsView(await getSettings(tx));
  });
}

/**
 * PUT /settings/{id} (defguard's "restore default branding"; the id is ignored as in defguard
 * 1.6, only 1 exists): instance name "Defguard", default logos, uploaded logos deleted.
 */
export async function restoreDefaultBranding(actor: Actor) {
  return transaction(async (tx) => {
    await getSettings(tx);
    await tx.delete(brandingLogos);
    await tx.update(settings).set({ instanceName: "Defguard", mainLogoUrl: "", navLogoUrl: "" }).where(eq(settings.id, 1));
    await recordActivity(tx, actor, { event: "settings_default_branding_restored", description: "Default branding restored (name and logos)" });
    return settingsView(await getSettings(tx));
  });
}

export interface StoredLogo {
  contentType: string;
  data: Buffer;
  etag: string;
}

/** The stored logo of a kind, or 404. */
export async function readLogo(kind: LogoKind): Promise<StoredLogo> {
  const [row] = await getDb()
    .select({ contentType: brandingLogos.contentType, data: brandingLogos.data, etag: brandingLogos.etag })
    .from(brandingLogos)
    .where(eq(brandingLogos.kind, kind))
    .limit(1);
  if (!row) throw new AppError(404, `no ${KIND_NAME[kind]} uploaded`);
  return row;
}
