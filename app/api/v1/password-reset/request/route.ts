import { route } from "@/lib/http/route";
import { passwordResetRequestSchema } from "@/lib/enrollment/schema";
import { requestPasswordReset } from "@/lib/enrollment/password-reset";

/** defguard proxy: e-mail a reset link to this address; the same empty 200 whether or not it is known. */
export const POST = route({ access: "public", body: passwordResetRequestSchema, skipXsrf: true, proxyErrors: true }, async ({ body, ip }) => {
  await requestPasswordReset(body.email, ip);
  return new Response(null, { status: 200 });
});
