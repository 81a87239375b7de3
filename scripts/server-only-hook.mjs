/**
 * `node --import ./scripts/server-only-hook.mjs …`: lets server-side code that runs outside
 * Next.js (server.ts under tsx, the gateway agent, benchmarks) import modules marked with
 * `import "server-only"`. The `server-only` package throws unless it is resolved under the
 * "react-server" condition, which Next.js applies to its server bundles only; this hook
 * resolves it to the package's own empty "react-server" entry and changes nothing else
 * (starting the whole process with --conditions=react-server would also switch React and
 * Next.js to their server-component builds). Client bundles still fail to build when they
 * import a server-only module: that check belongs to Next.js and does not use this hook.
 */
import { register } from "node:module";

const hooks = `
export async function resolve(specifier, context, next) {
  if (specifier === "server-only") {
    return next(specifier, { ...context, conditions: [...context.conditions, "react-server"] });
  }
  return next(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url);
