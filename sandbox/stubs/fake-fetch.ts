// test/support/fake-fetch.ts replaces the global fetch of the workerd tests; the sandbox calls each fake's handler
// itself (sandbox/networks.ts), so registering an origin does nothing here.
type Handler = (request: Request) => Response | Promise<Response>;
export function fakeOrigin(_origin: string, _handler: Handler): () => void {
  return () => {};
}
export function currentFake(_origin: string): Handler | undefined {
  return undefined;
}
