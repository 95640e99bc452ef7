export * from "./idempotency";
export * from "./labels";
export * from "./media";
export * from "./posts";
export * from "./signatures";
export * from "./social-accounts";
export * from "./webhooks";
export * from "./workspaces";
