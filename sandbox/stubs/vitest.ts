// The fakes' assertion helpers import `expect`; the sandbox never calls them.
export function expect(): never {
  throw new Error("vitest's expect is not available in the sandbox");
}
