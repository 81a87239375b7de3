/** A benchmark suite: bench/suites/<name>.ts default-exports one. */
export interface Suite {
  /** Selects the suite on the command line: npm run bench -- <name> */
  name: string;
  /** One line for the report. */
  description: string;
  run(ctx: SuiteContext): Promise<Row[]>;
}

/** One table row; the table's columns are the union of the rows' keys, in first-seen order. */
export type Row = Record<string, string | number>;

export interface SuiteContext {
  /** Repository root. */
  root: string;
  /** Progress output (stderr), kept out of the table. */
  log(message: string): void;
}
