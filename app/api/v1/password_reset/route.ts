import { json, route } from "@/lib/http/route";
import { resetPasswordSchema } from "@/lib/users/schema";
import { resetPasswordWithToken } from "@/lib/users/service";

export const POST = route({ access: "public", body: resetPasswordSchema, skipXsrf: true }, async ({ body, ip }) => {
  await resetPasswordWithToken(body.token, body.password, ip);
  return json(null);
});
