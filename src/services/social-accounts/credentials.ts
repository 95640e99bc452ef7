import { requireSecret } from "../../config";
import type { ServiceContext } from "../../context";
import { decryptJson, encryptJson } from "../../lib/crypto";

/** Decrypted platform credentials. OAuth platforms use access/refresh tokens; Bluesky keeps its session too. */
export interface AccountCredentials {
  access_token?: string;
  refresh_token?: string;
  /** Epoch ms. */
  expires_at?: number | null;
  /** Bluesky */
  identifier?: string;
  app_password?: string;
  access_jwt?: string;
  refresh_jwt?: string;
}

export function sealCredentials(ctx: Pick<ServiceContext, "config">, creds: AccountCredentials): Promise<string> {
  return encryptJson(requireSecret(ctx.config, "TOKEN_ENCRYPTION_KEY"), creds);
}

export function openCredentials(ctx: Pick<ServiceContext, "config">, sealed: string): Promise<AccountCredentials> {
  return decryptJson<AccountCredentials>(requireSecret(ctx.config, "TOKEN_ENCRYPTION_KEY"), sealed);
}
