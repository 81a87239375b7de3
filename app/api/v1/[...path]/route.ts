import { errorResponse, route } from "@/lib/http/route";
import { unknownPathMessage } from "@/lib/platform/unbuilt";

/**
 * Every /api/v1 path no other route matches: a JSON 404 instead of the HTML not-found page.
 * Next.js tries this catch-all last, so it never shadows a real route.
 */
const notFound = route({ access: "public", skipXsrf: true }, async ({ req }) => errorResponse(404, unknownPathMessage(new URL(req.url).pathname)));

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
