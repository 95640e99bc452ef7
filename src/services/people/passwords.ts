import { validationError } from "../../lib/errors";

/**
 * Passwords a new person may not choose (issue 35): the most common passwords of the public breach corpora that
 * are at least PASSWORD_MIN (8) characters long — the top of the lists every guessing attack starts with (e.g.
 * SecLists' "10k-most-common", NCSC's "100k-most-used") — plus a few shapes no list needs: one character repeated,
 * a run of digits or letters in keyboard order, and the person's own email or its name part. A built-in list (about
 * 1.5 KB in the bundle) rather than a zxcvbn-style scorer, whose dictionaries are the bulk of its size (not measured
 * here: docs/security.md "Passwords"); NIST SP 800-63B asks for a blocklist of commonly-used, expected or
 * compromised values, which this is, in small.
 * Compared lowercased, so "Password1" is refused with "password1". No network call (no k-anonymity API).
 */
const COMMON = new Set(
  `12345678 123456789 1234567890 123123123 password password1 password12 password123 passw0rd p@ssw0rd p@ssword
  qwertyuiop qwerty123 qwerty12 1q2w3e4r 1q2w3e4r5t 1qaz2wsx zaq12wsx qazwsxedc q1w2e3r4 iloveyou iloveyou1
  11111111 00000000 88888888 87654321 99999999 12341234 11223344 12344321 147258369 987654321 159753456 12121212
  sunshine princess football baseball basketball superman batman123 trustno1 welcome1 welcome123 letmein1 monkey123
  dragon123 master123 starwars whatever jennifer michelle computer internet corvette mercedes abcd1234 abc12345
  abcdefgh asdfghjkl asdfasdf asdf1234 zxcvbnm1 zxcvbnm123 chocolate liverpool arsenal1 changeme changeme123
  secret123 admin123 administrator adminadmin root1234 test1234 testtest guest123 default1 letmein123 lovely123
  shadow123 michael1 jordan23 charlie1 freedom1 hello123 hellohello loveme123 summer2024 summer2025 summer2026
  winter2024 winter2025 winter2026 spring2025 autumn2025 password2024 password2025 password2026 qwerty2025
  football1 baseball1 mustang1 access14 master12 samsung1 pokemon1 minecraft fortnite1 google123 facebook1
  unknown1 x1234567 aa123456 a1234567 a12345678 qwer1234 1234qwer 12qwaszx 123qweasd 123qweasdzxc`.split(/\s+/),
);

const ORDERED = ["0123456789", "9876543210", "abcdefghijklmnopqrstuvwxyz", "qwertyuiopasdfghjklzxcvbnm"];

export const WEAK_PASSWORD =
  "This password is too easy to guess (a common password, a repeated character or a keyboard run): choose another.";

/** Whether a password is on the list or of a shape guessed at once. */
export function isGuessable(password: string, email?: string): boolean {
  const p = password.toLowerCase();
  if (COMMON.has(p)) return true;
  if (new Set(p).size <= 2) return true;
  if (ORDERED.some((run) => run.includes(p))) return true;
  if (email) {
    const address = email.trim().toLowerCase();
    const local = address.split("@")[0] ?? "";
    if (p === address || (local.length >= 4 && p.includes(local) && p.length - local.length < 4)) return true;
  }
  return false;
}

/** 422 on `field` when a new person's password is guessable. */
export function assertStrongPassword(password: string, email: string, field = "password"): void {
  if (isGuessable(password, email)) throw validationError({ [field]: [WEAK_PASSWORD] });
}
