import "server-only";
export * from "../cookies";
