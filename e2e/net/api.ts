/**
 * A minimal /api/v1 client for the network tests (and the gateway benchmark): signs in,
 * keeps the session and XSRF cookies, sends X-XSRF-TOKEN on unsafe methods like the UI.
 */
export class Api {
  private cookies = new Map<string, string>();

  constructor(readonly baseURL: string) {}

  private store(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair.indexOf("=");
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }

  async request(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (method !== "GET" && this.cookies.has("XSRF-TOKEN")) headers["x-xsrf-token"] = decodeURIComponent(this.cookies.get("XSRF-TOKEN")!);
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${this.baseURL}/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    this.store(res);
    return res;
  }

  /** JSON body of an answer with the expected status; throws with the body otherwise. */
  async ok<T = any>(method: string, path: string, body?: unknown, status = method === "POST" ? 201 : 200): Promise<T> {
    const res = await this.request(method, path, body);
    const text = await res.text();
    if (res.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${res.status}: ${text.slice(0, 500)}`);
    try {
      return JSON.parse(text) as T;
    } catch {
      return text as T;
    }
  }

  async signIn(username: string, password: string): Promise<void> {
    await this.ok("POST", "/auth", { username, password }, 200);
  }
}
