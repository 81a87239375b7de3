// vitest resolves `import "server-only"` here (vitest.config.ts alias): the tests run server
// code on purpose, outside Next.js's "react-server" bundles where the package is a no-op too.
export {};
