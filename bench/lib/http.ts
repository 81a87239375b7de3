/** Cookie-carrying sign-in for benchmark suites that talk to a running console. */

export type Cookies = Record<string, string>;

export function cookieHeader(c: Cookies): string {
  return Object.entries(c)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
}

export async function signIn(baseURL: string, username: string, password: string): Promise<Cookies> {
  const res = await fetch(`${baseURL}/api/v1/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`sign-in as ${username} returned ${res.status}: ${text.slice(0, 200)}`);
  const cookies: Cookies = {};
  for (const h of res.headers.getSetCookie()) {
    const [pair] = h.split(";");
    const i = pair.indexOf("=");
    cookies[pair.slice(0, i).trim()] = pair.slice(i + 1).trim();
  }
  return cookies;
}
