import type { ServiceContext } from "../../context";
import { isSealedWithCurrentKey, openJson, type SealingKeys, sealJson } from "../../lib/crypto";
import { sealedAt, sealingKeys } from "../../lib/sealing";

/** Decrypted platform credentials. OAuth platforms use access/refresh tokens; Bluesky keeps its session too. */
export interface AccountCredentials {
  access_token?: string;
  refresh_token?: string;
  /** Epoch ms. */
  expires_at?: number | null;
  /**
   * Epoch ms when the refresh token itself ends, where the network says so (`refresh_token_expires_in` /
   * `refresh_expires_in`): the end of an access the service cannot renew past (docs/account-health.md).
   */
  refresh_expires_at?: number | null;
  /** Bluesky */
  identifier?: string;
  app_password?: string;
  access_jwt?: string;
  refresh_jwt?: string;
}

/** TOKEN_ENCRYPTION_KEY seals; it and TOKEN_ENCRYPTION_KEYS_PREVIOUS open (rotation: docs/security.md). */
export function credentialKeys(ctx: Pick<ServiceContext, "config">): SealingKeys {
  return sealingKeys(ctx.config);
}

/** The additional data binding a ciphertext to its row: it opens only as the credentials of that account. */
const boundTo = (accountId: string) => sealedAt({ table: "social_accounts", row: accountId });

export function sealCredentials(
  ctx: Pick<ServiceContext, "config">,
  accountId: string,
  creds: AccountCredentials,
): Promise<string> {
  return sealJson(credentialKeys(ctx), boundTo(accountId), creds);
}

export function openCredentials(
  ctx: Pick<ServiceContext, "config">,
  accountId: string,
  sealed: string,
): Promise<AccountCredentials> {
  return openJson<AccountCredentials>(credentialKeys(ctx), boundTo(accountId), sealed);
}

/** Whether the row's ciphertext is legacy (v1) or under a previous key, i.e. worth sealing again. */
export async function credentialsNeedResealing(ctx: Pick<ServiceContext, "config">, sealed: string) {
  return !(await isSealedWithCurrentKey(credentialKeys(ctx), sealed));
}
