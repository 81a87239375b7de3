export * from "./users";
export * from "./auth";
export * from "./settings";
export * from "./activity";
export * from "./mail";
export * from "./mfa";
export * from "./locations";
export * from "./gateways";
