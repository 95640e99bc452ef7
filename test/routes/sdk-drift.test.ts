import { describe, expect, it } from "vitest";
import sdkDocument from "../../sdk/openapi.json";
import { call } from "../support/harness";

/**
 * The SDK (sdk/) cannot drift from the API: sdk/openapi.json is the document the Worker serves (less `servers`, the
 * origin it was asked on). A route whose schema changed fails here until `npm run sdk:generate` is run and its output
 * committed; sdk/schema.d.ts is then checked against sdk/openapi.json by test/sdk/sdk.test.mjs.
 */
describe("SDK document", () => {
  it("sdk/openapi.json is the document served at /api/openapi.json (run npm run sdk:generate when this fails)", async () => {
    const res = await call("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    const { servers, ...served } = res.body;
    expect(servers).toEqual([{ url: "https://api.test" }]);
    expect(served).toEqual(sdkDocument);
  });
});
