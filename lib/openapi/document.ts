import "server-only";
import { z } from "zod";
import { VERSION } from "../settings/info";
import { OPERATIONS, type Operation } from "./operations";

const ACCESS_TEXT: Record<Operation["access"], string> = {
  public: "No authentication.",
  session: "Any session, also one waiting for its second factor.",
  user: "Signed-in user.",
  admin: "Signed-in admin (session or API token).",
  "self-or-admin": "The user named in the path, or an admin.",
};

function schemaOf(s: z.ZodType) {
  return z.toJSONSchema(s, { io: "input", unrepresentable: "any" });
}

/** The OpenAPI 3.1 description served at /api/v1/api-docs. */
export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    if (op.catchAll) continue;
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const query = op.query
      ? Object.entries((schemaOf(op.query) as { properties?: Record<string, unknown> }).properties ?? {}).map(
          ([name, schema]) => ({ name, in: "query", required: false, schema }),
        )
      : [];
    const ok = op.ok ?? { status: 200, description: "OK" };
    (paths[op.path] ??= {})[op.method.toLowerCase()] = {
      tags: [op.tag],
      summary: op.summary,
      description: ACCESS_TEXT[op.access],
      // A cookie session, or an admin's API token (which acts as that admin on any route).
      security: op.access === "public" ? [] : [{ session: [] }, { api_token: [] }],
      parameters: [...params, ...query],
      ...(op.body
        ? { requestBody: { required: true, content: { "application/json": { schema: schemaOf(op.body) } } } }
        : {}),
      responses: {
        [ok.status]: { description: ok.description },
        "400": { description: "Bad input: {msg} names the field", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        ...(op.access === "public" ? {} : { "401": { description: "Not signed in" }, "403": { description: "Not allowed / missing X-XSRF-TOKEN" } }),
        ...(["GET", "HEAD"].includes(op.method)
          ? {}
          : { "415": { description: "A request body that is not sent as Content-Type: application/json", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } } }),
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Defguard-compatible VPN console API",
      version: VERSION,
      description:
        "REST API under /api/v1, wire-compatible with defguard 1.x. Cookie sessions send X-XSRF-TOKEN (copy of the XSRF-TOKEN cookie) on every non-GET request; admins' scripts may instead send Authorization: Bearer <API token> (no cookie, no X-XSRF-TOKEN). Request bodies are JSON only (Content-Type: application/json; anything else answers 415). Paths not listed here answer 404 with a JSON {msg}. " +
        "OpenID Connect provider (served outside this table, by oidc-provider): discovery at /.well-known/openid-configuration; " +
        "authorization /api/v1/oauth/authorize (code flow, PKCE S256, state, nonce; also defguard's consent decision POST /api/v1/oauth/authorize?<request>&allow=true|false with the session cookie and X-XSRF-TOKEN, answered 302 to the redirect URI); " +
        "token /api/v1/oauth/token (client_secret_basic or client_secret_post; authorization_code and refresh_token with rotation); userinfo /api/v1/oauth/userinfo; JWKS /api/v1/oauth/discovery/keys; revocation /api/v1/oauth/revoke. " +
        "While the OpenID apps module is off (Settings → Global) the provider answers 403 {error: \"access_denied\", error_description} to these endpoints (discovery included), an error page to the authorization and logout endpoints, and 403 {msg, code: \"module_disabled\"} to the consent decision.",
    },
    servers: [{ url: "/api/v1" }],
    components: {
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: "defguard_session" },
        api_token: {
          type: "http",
          scheme: "bearer",
          description:
            "An admin's API token (POST /user/{username}/api_token): Authorization: Bearer dg-<32 letters or digits>. No cookie and no X-XSRF-TOKEN; refused (403) once its owner is no longer an admin.",
        },
      },
      schemas: {
        Error: { type: "object", properties: { msg: { type: "string" }, field: { type: "string" } }, required: ["msg"] },
      },
    },
    paths,
  };
}
