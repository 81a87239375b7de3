import type en from "./en.json";

// Message keys are checked at compile time against the English file.
declare module "next-intl" {
  interface AppConfig {
    Messages: typeof en;
  }
}
