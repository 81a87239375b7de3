// Next.js ambient types for the standalone type check (tsconfig.check.json), which does not
// use the generated next-env.d.ts: builds rewrite that file to point at their own directory.
/// <reference types="next" />
/// <reference types="next/image-types/global" />
